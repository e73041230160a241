// Package redact replaces personal data and secrets in text with typed
// placeholders before the text leaves the machine (model requests, stored
// history, logs).
//
// # Types and placeholders
//
// A value of type T becomes "[REDACTED_T]":
//
//	EMAIL    e-mail addresses (IDN xn-- domains included; percent-encoded in a URL-like run,
//	         "alice%40corp.example.com", the encoded span)
//	PHONE    phone numbers in national and international layouts: 03-1234-5678,
//	         090-1234-5678, +81 90 1234 5678, (555) 123-4567, +1-202-555-0143,
//	         +41 (0)71 526 99 04, 916.972.1680x22008; a bare run of digits only
//	         after a phone word ("Tel", "Desk:", "電話番号") or before one ("... office")
//	CC       card numbers of 13-19 digits (12 after a card word) that pass the
//	         Luhn check, plain or grouped by one space or dash (groups of
//	         four may end in a short group: 3056 9309 0259 04)
//	SSN      US social security numbers 078-05-1123, 078 05 1123, 078.05.1123
//	         (area 000, 666 and 9xx, group 00 and serial 0000 are not SSNs)
//	IP       IPv4 and IPv6 addresses, compressed, zoned, IPv4-mapped, private
//	         and loopback ranges included; ports and prefix lengths are kept
//	API_KEY  vendor token formats (AWS access key IDs, Google API keys, GitHub,
//	         GitLab, Slack tokens and webhook URLs, Stripe, OpenAI, Anthropic,
//	         Hugging Face, Gemini AQ. auth keys, JWTs, about 215 prefixes in all, taken from the
//	         prefix conventions of the public detector lists by category:
//	         infrastructure-as-code clouds, secret vaults, code-quality and
//	         developer services, payment, feature-flag and messaging vendors,
//	         AI vendors), Bearer tokens, values assigned to keys such as
//	         api_key, apikey, x-api-key, token, access_token, sonar.login
//	         (also PowerShell's $env:API_KEY = "…"),
//	         cloud access key IDs under access_key_id / AccessKeyId (AWS
//	         upper-case IDs and other clouds' random IDs), and a random token
//	         named in a sentence ("the leaked token wf8Y… was revoked"),
//	         and the sig= signature of an Azure SAS query (one with sv=)
//	MY_NUMBER the Japanese Individual Number (マイナンバー): 12 digits whose
//	         last is the check digit of the official rule, plain, spaced or
//	         hyphenated in fours after マイナンバー, 個人番号 or "My Number",
//	         and grouped in fours alone
//	SECRET   values assigned to password, passwd, pwd, secret, private_key,
//	         client_secret, ... (also パスワード and contraseña), PEM private-key
//	         blocks, the password of scheme://user:pass@host and of curl -u
//	         user:pass, HTTP Basic credentials, AWS secret access keys, Azure
//	         client secrets and other secret-typed vendor formats, and a
//	         password named in a sentence after a copula ("the admin password
//	         was Dragon4036!", "passphrase set to …") when it has a letter and
//	         a digit, the last field of PostgreSQL password-file lines
//	         (host:port:database:user:password, also inside JSON), the
//	         password options of common tools (sshpass -p, docker/podman/
//	         helm/oras/az login -p, ldap* -w, redis-cli -a, smbclient -U
//	         user%pass, net user NAME PASS) and the literal of
//	         ConvertTo-SecureString; a password right after the word without
//	         a copula when it looks like one on its own ("password
//	         Tr0mbone!77", passphrase "red-Otter-19"), after a qualifier
//	         ("the password for web02 is …"), and the password of a
//	         "user / password" pair after a login word
//
// ParseTypes reads a comma-separated list of these names (or "all", "none")
// for command-line flags.
//
// # What is kept
//
// Values analysts need as indicators, and look-alikes that are not personal
// data, are left as they are: URLs and domains (only credentials inside a URL
// are removed, and whole webhook URLs, which are secrets), dates and
// timestamps, UUIDs, hashes, version strings (a dotted quad after "version",
// "v", "build", "section", "Product/" or a key ending in "Version" is a
// version, not an address), the digit groups of IBANs, ordinary numbers,
// AWS account IDs (12 digits) and resource IDs (i-0abc..., arn:...), numbers
// that fail the Luhn check, invalid SSNs and IP addresses, placeholders such
// as ghp_xxxx..., ${PASSWORD}, <your-api-key>, ****, YOUR_KEY_HERE, and
// indirect references such as secret = get_secret(),
// password = os.environ["X"] and values computed by commands ($cred =
// Get-Credential, $secret = (Get-AzKeyVaultSecret …).SecretValue); of
// ConvertTo-SecureString "…" the quoted argument is the literal.
//
// # How it works
//
// Detection is hand-written byte scanning with tables built once at package
// initialisation; no regular expression is compiled per call (the numbering
// plans' patterns are compiled once, a region the first time it is asked
// about: phoneplan.go). One pass walks
// the words of the text and dispatches on their first bytes (digits to the
// number parser, letters to the vendor-prefix table, key=value assignments
// and Authorization schemes), after a test that skips ordinary words no
// detector can start at (prefilter.go); detectors anchored on a rare literal (an '@',
// "://", "-----BEGIN ", a placeholder) run only when its trigger byte occurs.
// Every detector proposes candidate spans with a priority; overlapping
// candidates are resolved deterministically: higher priority first (existing
// placeholders, private keys, vendor tokens, credentials, assignments, e-mail,
// cards, SSNs, IP addresses, phones), then the longer span, then the leftmost.
// A card number is therefore never reported as a phone number, also when only
// PHONE is enabled.
//
// Short strings of a few shapes, which make up most of a tool result (a word
// of up to 12 letters, digits and '_', an RFC 3339 timestamp, an IPv4 address,
// a plain e-mail address), get the scan's known answer without the scan
// (quick.go; tests hold it to the full scan). A walk of a result (Map) takes
// one scanner and one token state for all its strings, and remembers its own
// tokens, so an address repeated as a key and as a value is derived once;
// nothing is remembered from one walk to the next.
//
// JSON is read by key and value at any escape depth: in "k": "v", \"k\":
// \"v\" and the same escaped again (tool output inside a tool result),
// the key name classifies the value and the value ends at the closing quote
// of its own depth, so a value's key decides as much as its shape. An
// unquoted value ends at the first space. A colon glued on both sides
// with a path-like right-hand side ("CredentialAccess:IAMUser/…",
// "…:secret:prod/db") joins the parts of a namespaced name and is not an
// assignment, and a key glued to a preceding colon is a part of a name.
// A value may be named by a sibling field instead of its own key: {"name":
// "DB_PASSWORD", "value": "…"} in container environment lists, "- name:
// API_TOKEN / value: …" in manifests, <add key="ClientSecret" value="…"/> in
// configuration files. A key that only contains the word "api" (apiMetrics)
// takes a value only when it is quoted and can only be a random token.
//
// Fullwidth forms (０９０－１２３４－５６７８, ＠, ：) and the ideographic space are
// folded to ASCII for detection; values glued to Japanese text
// ("電話は090-1234-5678です") are found because every non-ASCII byte separates
// words. Offsets are bytes of the original text, and replacements always cover
// whole characters, so the output is valid UTF-8 whenever the input is.
//
// Redaction is idempotent: placeholders are never matched and count as
// opaque neighbours in boundary checks, so redacting redacted text changes
// nothing.
//
// # genai contents
//
// redacthist.Contents redacts []*genai.Content in place with a Redactor: the text of each
// content as one text across its parts (thoughts apart; see "Where redaction happens" and
// Pieces), function call arguments and function responses at any depth
// (strings in maps, slices and typed values, map keys, integers long
// enough to be card numbers, and values judged with their keys; see Map), tool calls and responses, executable
// code and its results, and audio transcriptions. A key that redaction
// changes is renamed, and keys that become equal are all kept (Map says
// how); a container nested deeper than MaxDepth is replaced by TooDeep. Thought signatures are opaque and never touched. FileData
// URIs are references the API resolves and are left as they are.
//
// Inline data rule: Blob data (and function-response inline data) is redacted
// when its MIME type is textual — text/*, JSON (also NDJSON and +json), XML
// (+xml), YAML, TOML, CSV, JavaScript, shell, SQL, form data, PEM and a few
// other source types — and the bytes are valid UTF-8; a charset parameter
// other than UTF-8/US-ASCII makes the data binary. The bytes are decoded as
// text, redacted and replaced. All other inline data (images, audio, PDF,
// octet-stream, ...) is left untouched. See IsTextualMIME.
//
// # Where redaction happens
//
// Gemini is not storage: what a session sends it is not redacted. Everything written is, and
// every write goes through this package by one of a few doors:
//
//   - a history (transcript, title, summary, conclusion note), by redacthist.History or a
//     session's save (pkg/session), whichever path writes it: a chat turn, a one-shot
//     question, a local batch and a Batch API job's results (both saved through sessions), a
//     spool file replayed (pkg/store/spool redacts what it is given again), and every other write
//     of the command line (pkg/store/redacting wraps the store);
//   - the stores' search data (the embedded database's full-text index, the cloud store's
//     search fields) is made from the history as stored, after redaction, never from the
//     live contents;
//   - the line editor's input history (pkg/inputhist), one question a text;
//   - alertchat redact, a stream of text (Copy).
//
// The alert under discussion is stored as given: a session's redactor keeps the values it
// holds (WithEvidence).
//
// A content's text is judged as one text, whatever parts it came in: a streamed answer's
// chunks (signed chunks stay parts of their own), a Gemini 3 signed last part, text on either
// side of a function call. redacthist.Contents gathers the text of a content (its answer
// parts, and apart from them its thought parts) and Pieces redacts the pieces as the one text
// they make: each replacement is written into the part where its value begins, with the token
// the whole value has anywhere else, the rest of the value is removed from the parts it runs
// into, and a part left with nothing at all is dropped (the API refuses an empty part).
// Parts keep their order, their kinds and their thought signatures, so the stored content is
// what the API accepts when it is sent back; the parts joined are exactly the whole text
// redacted (TestPiecesProperty, FuzzPieces). Summaries, notes, titles and questions are one
// string each and are redacted whole. A reply cut short (it ends with the part
// redacthist.PartialMarker) may end inside a value: its end is read as a value that may go on
// (tail.go), so no piece of a value that had arrived is written.
//
// Decoded JSON (function-call arguments, tool results, MCP structuredContent) is walked by
// Map; a value under a key that labels it (a secret, a key or a token, personal data) or the
// "value" beside such a "name" or "key" is judged as the same bytes written as "key": value
// in text would be (labels.go), numbers included.
//
// A text of one piece larger than 4 MB is redacted in windows (Copy): memory holds the text,
// its redacted copy and a window, whatever its size.
//
// # Limits
//
// Detection is by layout and context, not by meaning. Names, postal addresses,
// IBANs and other identifiers are out of scope. A phone number written as a
// bare run of digits without a phone word nearby, a secret in free prose
// without a key word ("it is hunter2"), a password named in a sentence
// without a digit ("the password was letmein") or, without a copula, too
// weak to stand on its own ("password hunter2"), a passphrase of fewer
// than three words without a digit, a password given positionally or to a
// tool not in the option table (.netrc "password X",
// a prompt echo "Password for user x: X"), a generic high-entropy string with no
// key and no known prefix, and vendor formats not in the table are not found.
// Conversely a number laid out like a phone number (three groups such as
// "100 200 300") is taken as one, a dotted quad that is really an OID prefix
// is taken as an address, and an API-key-looking value assigned to a key word
// is redacted even when it is a public identifier. An unquoted value ends at
// the first space, so of an unquoted passphrase ("password: two words") only
// the first word is replaced; quoted values are replaced whole. A value after
// a glued colon that looks like a path ("password:abc/def") is read as part
// of a namespaced name and kept. A key that names only a vendor
// ("cloudimage: …", "invoiceocean '…'") says nothing, so a token without a
// known prefix under such a key is not found; an unquoted dotted value
// without digits under a secret key ("password: app.settings") reads as a
// code reference and is kept. Conversely a word with a letter and a digit
// after "password is" or "password was" ("the password is SHA256-hashed",
// "password was 2FA-protected") is taken as the password.
package redact
