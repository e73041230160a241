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
