package evidence

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// caseFolder writes the worked example's case folder into a temporary directory: CloudTrail
// (gzip'd Records), DNS NDJSON with a malformed line, an auth log with Japanese text, and a
// CSV of hosts with a row of the wrong width.
func caseFolder(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("aws/cloudtrail.json.gz", gz(t, []byte(`{"Records":[
{"eventTime":"2026-11-20T10:01:00Z","eventName":"ConsoleLogin","sourceIPAddress":"203.0.113.7","userIdentity":{"type":"IAMUser","userName":"alice"},"awsRegion":"us-east-1"},
{"eventTime":"2026-11-20T10:05:00Z","eventName":"ListBuckets","sourceIPAddress":"203.0.113.7","userIdentity":{"type":"IAMUser","userName":"alice"},"awsRegion":"us-east-1"},
{"eventTime":"2026-11-20T11:00:00Z","eventName":"GetObject","sourceIPAddress":"198.51.100.20","userIdentity":{"type":"AssumedRole","userName":"build"},"awsRegion":"eu-west-1","errorCode":"AccessDenied"}
]}`)))
	write("dns.ndjson", []byte(`{"ts":"2026-11-20T09:59:58Z","client":"10.0.3.7","query":"login.example.com","answer":"203.0.113.7"}
{"ts":"2026-11-20T10:00:30Z","client":"10.0.3.7","query":"evil.example.net","answer":"198.51.100.20","blocked":true}
{this line is not json
{"ts":"2026-11-20T10:02:00Z","client":"10.0.3.9","query":"intranet.corp","answer":"10.0.0.5","ttl":300}
`))
	write("auth.log", []byte("Nov 20 10:00:01 web1 sshd[411]: Accepted publickey for alice from 203.0.113.7 port 50522\n"+
		"Nov 20 10:00:02 web1 sshd[411]: pam_unix(sshd:session): session opened for user alice\n"+
		"Nov 20 10:03:00 web1 sudo: alice : TTY=pts/0 ; COMMAND=/usr/bin/cat /etc/shadow\n"+
		"Nov 20 10:04:00 web1 app[99]: ユーザー アリス がログインしました (ÉTÉ)\n"+
		"Nov 20 10:09:00 web1 sshd[412]: Failed password for root from 198.51.100.20 port 4242\n"))
	write("hosts.csv", []byte("hostname,ip,owner,port\nweb1,10.0.3.7,alice,22\ndb1,10.0.3.9,bob,5432\nbroken,row\nbuild,10.0.3.11,ci,0022\n"))
	return dir
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func openSet(t testing.TB, dirs ...string) *Set {
	t.Helper()
	s, err := Open(dirs, Options{CacheDir: filepath.Join(t.TempDir(), "cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
