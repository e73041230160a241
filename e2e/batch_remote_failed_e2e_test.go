package e2e_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

// sameAnswers answers a question the same whether it comes as a direct call (a local batch)
// or as a request of a batch job: titles from the question, a 400 for a question asking to
// fail (as the API answers a request it refuses), an answer for the others.
func sameAnswers(r *geminitest.Request) geminitest.Reply {
	q := r.LastUserText()
	if strings.HasPrefix(q, "Generate a chat session title") {
		_, query, _ := strings.Cut(q, "Query:\n")
		return geminitest.Reply{Text: "Title of " + firstLine(query)}
	}
	if strings.Contains(q, "please fail") {
		return geminitest.Reply{Status: 400, ErrorMessage: "Request contains an invalid argument."}
	}
	return geminitest.Reply{Text: "answer to: " + firstLine(q)}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func sameAnswerOptions(more ...geminitest.Option) []geminitest.Option {
	return append([]geminitest.Option{
		geminitest.WithHandler(sameAnswers),
		geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply { return sameAnswers(r.Request) }),
	}, more...)
}

// failedInput is three questions, the second of which the model refuses. Big questions
// (5.6 MB of text each) make a job too large to send inline.
func failedInput(t *testing.T, c *cli, alert string, big bool) string {
	t.Helper()
	input := filepath.Join(c.dataDir, "q.jsonl")
	pad := ""
	if big {
		pad = "\n" + strings.Repeat("padding ", 700_000)
	}
	data := jsonl(
		map[string]any{"id": 1, "alert_id": alert, "query": "who owns the domain?" + pad},
		map[string]any{"id": "two", "alert_id": alert, "query": "please fail this one"},
		map[string]any{"id": 3, "alert_id": alert, "query": "is it internal?" + pad},
	)
	if err := os.WriteFile(input, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return input
}

// sameLines checks that a remote batch wrote what a local batch wrote for the same input,
// history IDs aside (each run makes its own histories), and that line 2 failed.
func sameLines(t *testing.T, local, remote []batchLine) {
	t.Helper()
	if len(local) != 3 || len(remote) != 3 {
		t.Fatalf("%d local lines, %d remote lines", len(local), len(remote))
	}
	for i := range local {
		l, r := local[i], remote[i]
		if string(l.ID) != string(r.ID) || l.Line != r.Line || l.AlertID != r.AlertID || l.Title != r.Title || l.Answer != r.Answer ||
			l.Usage != r.Usage || (l.Error == nil) != (r.Error == nil) || (l.HistoryID == "") != (r.HistoryID == "") {
			t.Errorf("line %d: local %+v, remote %+v", i+1, l, r)
		}
		if l.Error != nil && describe(*l.Error) != describe(*r.Error) {
			t.Errorf("line %d: local error %q, remote error %q", i+1, *l.Error, *r.Error)
		}
	}
	if remote[1].Error == nil || !strings.Contains(*remote[1].Error, "Request contains an invalid argument.") || remote[0].Error != nil || remote[2].Error != nil {
		t.Fatalf("lines %+v", remote)
	}
}

// describe is an error line's description, without the failed call it names (a direct call
// or a request of a job) and the API error after it.
func describe(msg string) string {
	for _, call := range []string{": model request failed: ", ": the batch job failed this request: "} {
		if before, _, ok := strings.Cut(msg, call); ok {
			return before
		}
	}
	return msg
}

// localThenRemote answers input with a local batch, then with a remote one (submitted, moved
// on to its end by the fake, collected), checks that their lines are the same (sameLines),
// and returns the job.
func localThenRemote(t *testing.T, c *cli, input string) geminitest.Batch {
	t.Helper()
	loc := c.run("", "batch", "-f", input, "--no-tools")
	if loc.code != 1 {
		t.Fatalf("local batch: exit %d, %s", loc.code, loc.stderr)
	}
	if r := c.run("", "batch", "-f", input, "--remote", "--no-wait"); r.code != 0 {
		t.Fatalf("submit: exit %d, %s", r.code, r.stderr)
	}
	b := c.srv.Batches()[0]
	c.srv.AdvanceBatches()
	c.srv.AdvanceBatches()
	rem := c.run("", "batch", "-f", input, "--remote")
	if rem.code != 1 {
		t.Fatalf("collect: exit %d, %s", rem.code, rem.stderr)
	}
	sameLines(t, parseBatch(t, loc.stdout), parseBatch(t, rem.stdout))
	return b
}

// TestRemoteBatchFailedQuestionLikeLocal: a question the model refuses fails a remote batch's
// line as it fails a local batch's, on the Gemini API with the requests inlined and as a file;
// the other lines are the local batch's too. The Batch API reports the failure with typed
// error details, which go-genai v1.77.0 cannot decode by itself.
func TestRemoteBatchFailedQuestionLikeLocal(t *testing.T) {
	t.Parallel()
	for _, file := range []bool{false, true} {
		name := "inline"
		if file {
			name = "file"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, sameAnswerOptions()...)
			alert := c.addAlert("guardduty.json")
			b := localThenRemote(t, c, failedInput(t, c, alert, file))
			if (b.FileName != "") != file {
				t.Fatalf("job sent as a file: %v, want %v", b.FileName != "", file)
			}
			if file {
				if _, ok := c.srv.FileData(b.FileName); ok {
					t.Fatalf("the uploaded input %s is still there after the collection", b.FileName)
				}
			}
		})
	}
}

// vertexCredentials writes a service account key whose tokens come from a token server of the
// test's, and returns the GOOGLE_APPLICATION_CREDENTIALS setting naming it.
func vertexCredentials(t *testing.T) string {
	t.Helper()
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token": "test-token", "token_type": "Bearer", "expires_in": 3600}`))
	}))
	t.Cleanup(tokens.Close)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "proj", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "alertchat-test@proj.iam.gserviceaccount.com", "client_id": "1",
		"token_uri": tokens.URL + "/token",
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, sa, 0o600); err != nil {
		t.Fatal(err)
	}
	return "GOOGLE_APPLICATION_CREDENTIALS=" + path
}

// TestRemoteBatchVertexFailedQuestionLikeLocal: the same on Vertex AI, through the cloud
// store's bucket (Firestore emulator and fake-gcs-server), whose predictions name no key; the
// job's folder in the bucket is deleted once the job is collected, and running the command
// again says the job was collected.
func TestRemoteBatchVertexFailedQuestionLikeLocal(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t, sameAnswerOptions(geminitest.WithVertexBatches(geminitest.VertexBatches{Objects: testenv.GCSObjects{Client: cloud.Storage}}))...)
	c.env = append(c.env, cloud.Env()...)
	c.env = append(c.env, "GOOGLE_GENAI_USE_VERTEXAI=true", "GOOGLE_CLOUD_PROJECT=proj", "GOOGLE_CLOUD_LOCATION=us-central1", vertexCredentials(t))
	alert := c.addAlert("guardduty.json")
	input := failedInput(t, c, alert, false)
	b := localThenRemote(t, c, input)
	if len(b.InputURIs) != 1 || !strings.HasPrefix(b.InputURIs[0], "gs://"+cloud.Bucket+"/batches/") {
		t.Fatalf("job %+v", b)
	}
	if left := testenv.ObjectNames(t, cloud.BucketHandle(), "batches/"); len(left) != 0 {
		t.Fatalf("left in the bucket after the collection: %v", left)
	}
	again := c.run("", "batch", "-f", input, "--remote")
	if again.code != 1 || again.stdout != "" || !strings.Contains(again.stderr, "collected already") {
		t.Fatalf("run again: exit %d, stdout %q, stderr %q", again.code, again.stdout, again.stderr)
	}
}
