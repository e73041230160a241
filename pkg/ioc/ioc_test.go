package ioc_test

import (
	"reflect"
	"testing"

	"github.com/alertchat/alertchat/pkg/ioc"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want ioc.Type
	}{
		{"203.0.113.7", ioc.IPv4},
		{"2001:db8::1", ioc.IPv6},
		{"evil.example.com", ioc.Domain},
		{"login.example.co.uk", ioc.Domain},
		{"https://evil.example.com/a?b=c", ioc.URL},
		{"alice@example.com", ioc.Email},
		{"d41d8cd98f00b204e9800998ecf8427e", ioc.MD5},
		{"da39a3ee5e6b4b0d3255bfef95601890afd80709", ioc.SHA1},
		{"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ioc.SHA256},
		{"cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e", ioc.SHA512},
		{"arn:aws:iam::123456789012:user/alice", ioc.AWSARN},
		{"i-0abcd1234ef567890", ioc.AWSResource},
		{"//compute.googleapis.com/projects/p-1/zones/us-central1-a/instances/web-1", ioc.GCPResource},
		{"projects/p-1/locations/global/keyRings/k", ioc.GCPResource},
	}
	for _, tt := range tests {
		got, ok := ioc.Classify(tt.in)
		if !ok || got != tt.want {
			t.Errorf("Classify(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, none := range []string{"", "config.yaml", "proc.name", "hello", "1.2.3", "00000000000000000000000000000000",
		"Recon:EC2/PortProbeUnprotectedPort", "file:///etc/passwd", "a@b", "v1.2", "example",
		"https://attack.mitre.org/techniques/T1496/", "https://docs.aws.amazon.com/securityhub/x", "www.virustotal.com"} {
		if got, ok := ioc.Classify(none); ok {
			t.Errorf("Classify(%q) = %q, want none", none, got)
		}
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	got := ioc.Find(`Blocked 203.0.113.7 (evil.example.com); see "https://x.example.org/p". Mail bob@example.com.`, "note")
	want := []ioc.Indicator{
		{ioc.IPv4, "203.0.113.7", "note"},
		{ioc.Domain, "evil.example.com", "note"},
		{ioc.URL, "https://x.example.org/p", "note"},
		{ioc.Email, "bob@example.com", "note"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Find:\n got %v\nwant %v", got, want)
	}
}

func TestFromAlert(t *testing.T) {
	t.Parallel()
	data := []byte(`{"Type":"Recon:EC2/PortProbeUnprotectedPort","Resource":{"InstanceDetails":{"InstanceId":"i-0abcd1234ef567890"}},
"Service":{"Action":{"RemoteIpDetails":{"IpAddressV4":"198.51.100.23"}}},"Notes":["seen 198.51.100.23 again", "from scan.example.net"],"Id":"034f3664616c49cb85349d0511ecd306"}`)
	got := ioc.FromAlert(data)
	want := []ioc.Indicator{
		{ioc.AWSResource, "i-0abcd1234ef567890", "alert: Resource.InstanceDetails.InstanceId"},
		{ioc.IPv4, "198.51.100.23", "alert: Service.Action.RemoteIpDetails.IpAddressV4"},
		{ioc.Domain, "scan.example.net", "alert: Notes[1]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromAlert:\n got %v\nwant %v", got, want)
	}
	if got := ioc.FromAlert([]byte("not json 203.0.113.9")); len(got) != 1 || got[0].Where != "alert" {
		t.Errorf("text alert: %v", got)
	}
}
