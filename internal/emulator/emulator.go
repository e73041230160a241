// Package emulator finds the Firestore emulator and the java that runs it, and the Pub/Sub
// emulator, for the test runner (internal/cmd/testrun) and the tests that start an emulator of
// their own (internal/testenv): one finder, so both look in the same places and say the same
// thing when it is missing.
package emulator

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	// Main is the emulator's main class.
	Main = "com.google.cloud.datastore.emulator.firestore.CloudFirestore"
	// JarRel is where the jar is under the Google Cloud SDK's root.
	JarRel = "platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
	// InstallHint says how to get it.
	InstallHint = "install it with `apt-get install google-cloud-cli-firestore-emulator openjdk-17-jre-headless` " +
		"(or `gcloud components install cloud-firestore-emulator`), or point FIRESTORE_EMULATOR_JAR at the jar"
)

// FindJava finds java: $JAVA_HOME/bin/java, else java on PATH.
func FindJava() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("java not found (the Firestore emulator needs Java 11 or later): %s", InstallHint)
	}
	return p, nil
}

// FindJar finds the Firestore emulator jar: $FIRESTORE_EMULATOR_JAR, else under the Google
// Cloud SDK's usual roots and the one of gcloud on PATH.
func FindJar() (string, error) {
	return findInSDK("FIRESTORE_EMULATOR_JAR", JarRel, "Firestore emulator jar", InstallHint)
}

const (
	// PubSubRel is where the Pub/Sub emulator's start script is under the SDK's root.
	PubSubRel = "platform/pubsub-emulator/bin/cloud-pubsub-emulator"
	// PubSubHint says how to get it.
	PubSubHint = "install it with `apt-get install google-cloud-cli-pubsub-emulator openjdk-17-jre-headless` " +
		"(or `gcloud components install pubsub-emulator`), or point PUBSUB_EMULATOR_BIN at its start script"
)

// FindPubSub finds the Pub/Sub emulator's start script (it runs java itself):
// $PUBSUB_EMULATOR_BIN, else under the Google Cloud SDK's roots as FindJar looks.
func FindPubSub() (string, error) {
	return findInSDK("PUBSUB_EMULATOR_BIN", PubSubRel, "Pub/Sub emulator", PubSubHint)
}

// findInSDK returns $env when set, else rel under the first SDK root holding it; what and hint
// say what is missing and how to get it.
func findInSDK(env, rel, what, hint string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", env, p, err)
		}
		return p, nil
	}
	var roots []string
	if r := os.Getenv("CLOUDSDK_ROOT_DIR"); r != "" {
		roots = append(roots, r)
	}
	roots = append(roots, "/usr/lib/google-cloud-sdk", "/usr/share/google-cloud-sdk", "/opt/google-cloud-sdk")
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, "google-cloud-sdk"))
	}
	// The SDK root is two levels above the real gcloud script (ROOT/bin/gcloud).
	if g, err := exec.LookPath("gcloud"); err == nil {
		if real, err := filepath.EvalSymlinks(g); err == nil {
			roots = append(roots, filepath.Dir(filepath.Dir(real)))
		}
	}
	for _, r := range roots {
		p := filepath.Join(r, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found (looked for %s under %s): %s", what, rel, strings.Join(roots, ", "), hint)
}
