package httprr_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/httprr"
)

func recording(pairs ...[2]string) string {
	var b strings.Builder
	b.WriteString("httprr trace v1\n")
	for _, p := range pairs {
		fmt.Fprintf(&b, "%d %d\n%s%s", len(p[0]), len(p[1]), p[0], p[1])
	}
	return b.String()
}

const (
	req1  = "POST https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse HTTP/1.1\r\nHost: generativelanguage.googleapis.com\r\nContent-Length: 15\r\nContent-Type: application/json\r\n\r\n{\"contents\":[]}"
	resp1 = "HTTP/2.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"candidates\": []}\r\n\r\n"
)

func TestParse(t *testing.T) {
	t.Parallel()
	ex, err := httprr.Parse([]byte(recording([2]string{req1, resp1}, [2]string{req1, "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}"})))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 2 || ex[0].Method != "POST" || ex[0].Path != "/v1beta/models/m:streamGenerateContent" || ex[0].RawQuery != "alt=sse" ||
		string(ex[0].RequestBody) != `{"contents":[]}` || ex[0].Status != 200 || string(ex[0].ResponseBody) != "data: {\"candidates\": []}\r\n\r\n" ||
		ex[1].Status != 404 || string(ex[1].ResponseBody) != "{}" {
		t.Fatalf("%+v", ex)
	}
	if c, err := ex[0].Contents(); err != nil || len(c) != 0 {
		t.Fatalf("contents %v %v", c, err)
	}
	for _, bad := range []string{"", "httprr trace v2\n", recording() + "12\n", recording() + "5 5\nshort", recording([2]string{"not http", resp1})} {
		if _, err := httprr.Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The replay answers the recorded responses in order, keeps what it was sent, and says when a
// request does not match the recording.
func TestReplay(t *testing.T) {
	t.Parallel()
	ex, err := httprr.Parse([]byte(recording([2]string{req1, resp1})))
	if err != nil {
		t.Fatal(err)
	}
	r := httprr.NewReplay(t, ex)
	resp, err := http.Post(r.URL()+"/v1beta/models/m:streamGenerateContent?alt=sse", "application/json", strings.NewReader(`{"contents":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || string(body) != string(ex[0].ResponseBody) {
		t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, body)
	}
	resp, err = http.Post(r.URL()+"/v1beta/models/m:generateContent", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || len(r.Mismatches()) != 1 || string(r.Requests()[0].RequestBody) != `{"contents":[1]}` {
		t.Fatalf("%d %v", resp.StatusCode, r.Mismatches())
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(recording([2]string{req1, resp1})))
	f.Add([]byte("httprr trace v1\n"))
	f.Add([]byte("httprr trace v1\n3 4\nabcdefg"))
	f.Add([]byte("httprr trace v1\n-1 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, err := httprr.Parse(data)
		if err != nil {
			return
		}
		for _, e := range ex {
			if e.Method == "" {
				t.Fatalf("an exchange without a method: %+v", e)
			}
		}
	})
}
