// Package redacthist is the redaction step every write of a history passes through: the
// contract (Redactor, AlertRedactor), its implementation over the redaction engine (Engine),
// and what is redacted of a history before it is written (History, Summary). It belongs with
// redaction, not with the conversation engine, so that the store layers (pkg/store/redacting)
// and the spool use it without depending on pkg/session.
//
// # Where redaction happens
//
// Every write of the command line, and the code that redacts it. The engine is pkg/redact; this
// package is the step each history write takes (History, Summary, Note, ForHistory, and Engine's
// walk over genai contents); pkg/workspace's KeyedRedactor is the workspace's engine (keyed tokens
// under the workspace's key, plain placeholders when the key cannot be had). With --redact none
// nothing is redacted, and cmd/cmdutil.WarnIfRedactionOff says so before anything is written.
// docs/redaction-writes.md is the same list for users.
//
// The store stack (pkg/workspace.Stack), from the top: the redacting layer,
// the embedding layer (store/embedding, when embeddings are on), resilient.Store, alertcache (cloud only), the
// backend. Sessions write below the redacting layer (workspace.Store.Sessions): they redact
// themselves.
//
// Histories:
//   - A session's turn (chat, chat -q, local batch, the answers of a Batch API job when they are
//     collected, eval --save): pkg/session, Session.save → syncStored redacts the contents not
//     yet redacted (RedactedCount) and the title with the session's ForAlert redactor, before
//     store.SaveOrFork; a generated or fallback title is redacted before it is cleaned and
//     shortened (setTitle); the summary when compaction makes it (compact → Summary). A fork
//     made on a conflict (store.SaveOrFork) is built from that redacted history.
//   - A session's manual title (/title, chat --title, the title samechat.Router applies to a
//     continued conversation): Session.SetTitle saves through save, as above.
//   - Every other history write (history rename, resolve and its --suggest, reopen, a spool
//     replay, anything a command saves through workspace.Store): pkg/store/redacting's SaveHistory
//     → ForHistory + History (contents, summary, title, the conclusion's note, a triage's
//     evidence: alertchat triage records its proposal on the history it investigated in
//     through this layer). history resolve
//     --suggest keeps the suggested verdict and conclusion (conclude.Suggestion); its evidence
//     is printed, not stored.
//   - The spool ({data dir}/spool/, a save the store could not take): pkg/store/spool.Spool.Put
//     redacts again (ForHistory + History) before the file is written, and workspace.Store.Flush
//     replays through the stack's top, the redaction layer. A corrupt entry is moved aside as it was written.
//   - Not redacted, by design: analysts' names (record.Question.Analyst,
//     Resolution.ResolvedBy), the workspace's own users, which filters and listings work by.
//   - Not redacted, by design: tool approvals (record.ToolApproval, appended by Session.save).
//     They hold no text of the conversation: tool and server names (the user's config and the
//     server's tool list), the decision, the kinds of what the egress guard held back (a fixed
//     list in pkg/mcp, never the values) and the names of the fields a server's elicitation
//     asked for (its schema; what the user typed is not kept).
//
// What is derived from a stored history (it never sees more than the redacted history):
//   - The local store's full-text index and the cloud store's search fields: built by the
//     backend's SaveHistory from the history it is given, and by history reindex
//     (search.IndexMissing → Indexer.Reindex) from the history as stored.
//   - Embeddings (vectors in either store): the embedding layer (store/embedding) is below the redacting layer and
//     sessions save through it with their redacted history; search.IndexMissing embeds what is
//     stored.
//   - The cloud store's verdict fields (verdict, resolution, questions, analysts): from the
//     history's metadata in the same save.
//
// Other files and records:
//   - The line editor's input history ({data dir}/input_history): pkg/inputhist redacts each
//     question whole with the workspace's redactor before it is written (a file in the older
//     format is redacted as one text when it is opened, and rewritten).
//   - The same-conversation judge's cache ({data dir}/judge-cache.json): samechat.JudgeCache
//     holds a hash of the question, redacted first when the Judge has a Redactor (cmd/chat
//     gives it the workspace's, for the alert), with the history ID, revision and SAME or
//     DIFFERENT; never the question.
//   - Batch API job records and reservations (store.BatchJobs): IDs, model, state, counts,
//     the Files API name and the SHA-256 of the whole input file; no text to redact. The job's
//     input file itself (pkg/batch/remote, questions as typed) goes to Gemini, not to storage:
//     a temporary file unlinked at once, and the uploaded copy deleted when the job is
//     collected.
//   - /export FILE (cmd/chat): the session's stored history (Session.History), redacted as
//     saved; history show and the transcript outputs read what is stored.
//   - Alerts (alert add, alert pull, chat -f: pkg/alert.Put, store.PutAlerts), the alert copy
//     kept beside a cloud store (pkg/store/alertcache) and alert add's staging database
//     (pkg/alert/stage, unlinked at once): stored as given, by design; they are the evidence
//     under analysis, and the values they hold are kept in conversations too (Engine.ForAlert).
//   - Secrets kept as secrets, never redacted and never written with a history: MCP sign-ins
//     (pkg/mcp Tokens: the keyring or 0600 files), the token key and its local copy
//     (pkg/tokenkey), the MCP config alertchat mcp add writes.
//   - State without content: the circuit breaker's files (resilient.FileMemory).
//
// Not storage: what goes to Gemini (the conversation unredacted within a session, the
// embedding requests of stored text, a Batch API job's input) and standard output (alertchat
// redact streams its input redacted; eval's report; mcp call's result).
package redacthist
