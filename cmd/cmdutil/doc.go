// Package cmdutil holds what every command may use, as GitHub CLI's cmdutil: the IO streams,
// the run's settings (Config) and the light Factory, typed errors and exit codes and the
// message of any error, output and prompt helpers, flags of a fixed set of values, and the
// warnings any command prints (WarnIfRedactionOff). It stays light: it links no store and no
// model, so the redact command, which imports only it, links none of Firestore, SQLite or genai.
package cmdutil
