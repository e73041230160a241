package emulator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindJarFromEnvironment(t *testing.T) {
	jar := filepath.Join(t.TempDir(), "emulator.jar")
	if err := os.WriteFile(jar, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FIRESTORE_EMULATOR_JAR", jar)
	if got, err := FindJar(); err != nil || got != jar {
		t.Fatalf("FindJar = %q, %v", got, err)
	}
	t.Setenv("FIRESTORE_EMULATOR_JAR", jar+".missing")
	if _, err := FindJar(); err == nil || !strings.Contains(err.Error(), "FIRESTORE_EMULATOR_JAR") {
		t.Fatalf("missing jar: %v", err)
	}
}

func TestFindPubSub(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "cloud-pubsub-emulator")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PUBSUB_EMULATOR_BIN", bin)
	if got, err := FindPubSub(); err != nil || got != bin {
		t.Fatalf("FindPubSub = %q, %v", got, err)
	}
	t.Setenv("PUBSUB_EMULATOR_BIN", bin+".missing")
	if _, err := FindPubSub(); err == nil || !strings.Contains(err.Error(), "PUBSUB_EMULATOR_BIN") {
		t.Fatalf("missing script: %v", err)
	}
	root := t.TempDir()
	t.Setenv("PUBSUB_EMULATOR_BIN", "")
	t.Setenv("CLOUDSDK_ROOT_DIR", root)
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(PubSubRel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, PubSubRel), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := FindPubSub(); err != nil || got != filepath.Join(root, PubSubRel) {
		t.Fatalf("FindPubSub under the SDK root = %q, %v", got, err)
	}
}
