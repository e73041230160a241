package cmd

import "os"

// clientCertVar is how the Google client libraries (cloud.google.com/go/auth
// internal/transport/cba.go, google.golang.org/api internal/cba.go) decide whether a client
// certificate is used. Unset, cloud.google.com/go/auth turns certificates on for googleapis.com
// and loads the certificate configuration (GOOGLE_API_CERTIFICATE_CONFIG, else gcloud's
// certificate_config.json), whose signer is a program it starts on the first Cloud client,
// before any credential lookup. Neither library has a client option that turns this off, so
// the process environment is where it is decided.
const clientCertVar = "GOOGLE_API_USE_CLIENT_CERTIFICATE"

// KeepClientCertificatesOff makes alertchat's own Google clients (Firestore, Cloud Storage,
// Pub/Sub) use no client certificate unless the real environment turns them on: call it
// before anything creates a client. A .env cannot set the variable (see dotenvAllowed).
func KeepClientCertificatesOff() {
	keepClientCertificatesOff(environ{lookup: os.LookupEnv, set: os.Setenv})
}

func keepClientCertificatesOff(env environ) {
	if _, ok := env.lookup(clientCertVar); ok {
		return // the operator's own choice, either way
	}
	_ = env.set(clientCertVar, "false")
}
