// Command alertchat is a terminal chat tool for security analysts: load an alert, ask Gemini
// about it, and keep, list, resume and script the conversations.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
)

func main() {
	// .env in the working directory, when present, fills variables the environment lacks,
	// only plain settings and the Gemini API key (cmd/dotenv.go).
	cmd.LoadDotEnv(".env", os.Stderr)
	// The Google client libraries start the program a certificate configuration names unless
	// told not to: only the real environment may turn client certificates on.
	cmd.KeepClientCertificatesOff()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(cmd.Run(ctx, os.Args, cmdutil.SystemIO()))
}
