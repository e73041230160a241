package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Preset is a hosted MCP server analysts use, as 'alertchat mcp add' writes it into mcp.json.
// The endpoints, sign-in and headers are those their providers document (docs/hosted-mcp.md).
type Preset struct {
	Name, Description string
	// NeedsProject and NeedsRegion: --project and --region must be given.
	NeedsProject, NeedsRegion bool
	// entry builds the server's config from --project and --region ("" when not given) and
	// alertchat's environment.
	entry func(project, region string, getenv func(string) string) ServerConfig
}

// googleEntry is a Google-hosted server: Application Default Credentials, and the project
// billed for the calls (x-goog-user-project) when --project is given.
func googleEntry(url string) func(project, region string, getenv func(string) string) ServerConfig {
	return func(project, _ string, _ func(string) string) ServerConfig {
		c := ServerConfig{HTTPURL: url, Auth: AuthGoogle}
		if project != "" {
			c.Headers = map[string]string{"x-goog-user-project": project}
		}
		return c
	}
}

// Presets are the hosted servers 'mcp add' knows, in name order.
func Presets() []Preset {
	ps := []Preset{
		{Name: "virustotal", Description: "VirusTotal's official server (threat intelligence on public indicators); OAuth sign-in, or the x-apikey header from $VT_APIKEY when it is set; public-only egress",
			entry: func(_, _ string, getenv func(string) string) ServerConfig {
				c := ServerConfig{HTTPURL: "https://ai.virustotal.com/mcp", Egress: EgressPublicOnly}
				if getenv != nil && getenv("VT_APIKEY") != "" {
					// Written as the variable, expanded when the config is read: the key never
					// lands in the file.
					c.Headers = map[string]string{"x-apikey": "$VT_APIKEY"}
				} else {
					c.Auth = AuthOAuth
				}
				return c
			}},
		{Name: "google-logging", Description: "Google Cloud Logging (log entries); Application Default Credentials", entry: googleEntry("https://logging.googleapis.com/mcp")},
		{Name: "google-bigquery", Description: "BigQuery (datasets, tables, SQL); Application Default Credentials", entry: googleEntry("https://bigquery.googleapis.com/mcp")},
		{Name: "google-scc", Description: "Security Command Center, investigate toolset (findings); Application Default Credentials", entry: googleEntry("https://securitycenter.googleapis.com/mcp/investigate")},
		{Name: "google-secops", Description: "Google SecOps (Chronicle SIEM and SOAR) of --region, billed to --project; Application Default Credentials",
			NeedsProject: true, NeedsRegion: true,
			entry: func(project, region string, _ func(string) string) ServerConfig {
				return ServerConfig{HTTPURL: "https://chronicle." + region + ".rep.googleapis.com/mcp", Auth: AuthGoogle,
					Headers: map[string]string{"x-goog-user-project": project}}
			}},
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

// PresetNames are the presets' names, in order.
func PresetNames() []string {
	var out []string
	for _, p := range Presets() {
		out = append(out, p.Name)
	}
	return out
}

var (
	projectID = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]$|^[a-z][a-z0-9.-]*:[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	regionID  = regexp.MustCompile(`^[a-z]+(-[a-z]+[0-9]*)?$`)
)

// ErrUnknownPreset is a preset name 'mcp add' does not know.
var ErrUnknownPreset = errors.New("unknown preset")

// PresetEntry is the server entry of the named preset, with --project and --region.
func PresetEntry(name, project, region string, getenv func(string) string) (ServerConfig, error) {
	for _, p := range Presets() {
		if p.Name != name {
			continue
		}
		if p.NeedsProject && project == "" {
			return ServerConfig{}, fmt.Errorf("preset %s needs --project (the Google Cloud project billed for the calls)", name)
		}
		if p.NeedsRegion && region == "" {
			return ServerConfig{}, fmt.Errorf("preset %s needs --region (your SecOps instance's region, as us or europe-west2)", name)
		}
		if project != "" && !projectID.MatchString(project) {
			return ServerConfig{}, fmt.Errorf("--project %q is not a Google Cloud project ID", project)
		}
		if region != "" && !regionID.MatchString(region) {
			return ServerConfig{}, fmt.Errorf("--region %q is not a region name (as us or europe-west2)", region)
		}
		if region != "" && !p.NeedsRegion {
			return ServerConfig{}, fmt.Errorf("preset %s has one global endpoint: --region is not for it", name)
		}
		return p.entry(project, region, getenv), nil
	}
	return ServerConfig{}, fmt.Errorf("%w %q: the presets are %s", ErrUnknownPreset, name, strings.Join(PresetNames(), ", "))
}

// EntryJSON is a server entry as it is written: its settings in a fixed order, "trust" false
// written out (a hosted server is not trusted until the user says so), indented by indent.
func EntryJSON(c ServerConfig, indent string) []byte {
	type field struct {
		k string
		v any
	}
	fields := []field{{"httpUrl", c.HTTPURL}}
	if c.Auth != "" {
		fields = append(fields, field{"auth", c.Auth})
	}
	if len(c.Headers) > 0 {
		fields = append(fields, field{"headers", c.Headers})
	}
	if c.Egress != "" {
		fields = append(fields, field{"egress", c.Egress})
	}
	fields = append(fields, field{"trust", false})
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, f := range fields {
		v, _ := json.Marshal(f.v)
		fmt.Fprintf(&b, "%s  %q: %s", indent, f.k, v)
		if i < len(fields)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
	return b.Bytes()
}

// ErrServerExists is an entry of that name already in the config.
var ErrServerExists = errors.New("the server is already configured")

// AddServer returns the config file data with the server entry name added into its
// "mcpServers" (made when missing), the rest of the file kept byte for byte: the entry is
// inserted into the text, never the whole file re-marshalled. An entry of that name is an
// ErrServerExists unless replace, which puts the new entry in its place. data may be empty (a
// new file). The result is checked to be a valid config.
func AddServer(data []byte, name string, c ServerConfig, replace bool) ([]byte, error) {
	if !serverName.MatchString(name) {
		return nil, fmt.Errorf("server name %q: use letters, digits, '_', '.', '-' (at most 40)", name)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		out := []byte("{\n  \"mcpServers\": {\n    " + quote(name) + ": " + string(EntryJSON(c, "    ")) + "\n  }\n}\n")
		return checked(out)
	}
	if _, err := Parse(data, func(string) string { return "" }); err != nil {
		return nil, err
	}
	sp, err := scanConfig(data, name)
	if err != nil {
		return nil, err
	}
	var out []byte
	switch {
	case sp.servers < 0:
		// No "mcpServers": one is added as the top object's last member.
		indent := sp.topIndent
		member := quote("mcpServers") + ": {\n" + indent + "  " + quote(name) + ": " + string(EntryJSON(c, indent+"  ")) + "\n" + indent + "}"
		out = insertMember(data, sp.topOpen, sp.topClose, sp.topLast, indent, member)
	case sp.valueStart >= 0:
		if !replace {
			return nil, ErrServerExists
		}
		out = append(append(append([]byte{}, data[:sp.valueStart]...), EntryJSON(c, sp.memberIndent)...), data[sp.valueEnd:]...)
	default:
		indent := sp.memberIndent
		out = insertMember(data, sp.servers, sp.serversClose, sp.serversLast, indent, quote(name)+": "+string(EntryJSON(c, indent)))
	}
	return checked(out)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func checked(out []byte) ([]byte, error) {
	if _, err := Parse(out, func(string) string { return "" }); err != nil {
		return nil, fmt.Errorf("the config would not be valid after the change: %w", err)
	}
	return out, nil
}

// insertMember inserts member into the object whose braces are at open and close; last is the
// end of its last member (-1 when it has none).
func insertMember(data []byte, open, close, last int, indent, member string) []byte {
	var b bytes.Buffer
	if last < 0 {
		b.Write(data[:open+1])
		b.WriteString("\n" + indent + member + "\n")
		b.WriteString(outdent(indent))
		b.Write(data[close:])
		return b.Bytes()
	}
	b.Write(data[:last])
	b.WriteString(",\n" + indent + member)
	b.Write(data[last:])
	return b.Bytes()
}

// outdent is the indentation of an object's closing brace whose members are at indent.
func outdent(indent string) string {
	if len(indent) >= 2 {
		return indent[:len(indent)-2]
	}
	return ""
}

// spans are the places in a config's text AddServer edits (offsets into it, -1 when absent).
type spans struct {
	topOpen, topClose, topLast int
	topIndent                  string
	servers, serversClose      int // the braces of "mcpServers"
	serversLast                int // the end of its last member's value
	memberIndent               string
	valueStart, valueEnd       int // the value of the entry named name
}

// scanConfig finds the spans of data (a valid config) for an entry named name.
func scanConfig(data []byte, name string) (spans, error) {
	sp := spans{topOpen: -1, topClose: -1, topLast: -1, servers: -1, serversClose: -1, serversLast: -1, valueStart: -1, valueEnd: -1, topIndent: "  ", memberIndent: "    "}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return sp, fmt.Errorf("not a valid MCP config: not a JSON object")
	}
	sp.topOpen = int(dec.InputOffset()) - 1
	first := true
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return sp, err
		}
		key, _ := kt.(string)
		keyEnd := int(dec.InputOffset())
		if first {
			sp.topIndent = indentBefore(data, keyEnd-len(quote(key)))
			first = false
		}
		if key == "mcpServers" {
			if _, err := dec.Token(); err != nil { // {
				return sp, err
			}
			sp.servers = int(dec.InputOffset()) - 1
			firstMember := true
			for dec.More() {
				mt, err := dec.Token()
				if err != nil {
					return sp, err
				}
				mkey, _ := mt.(string)
				mEnd := int(dec.InputOffset())
				if firstMember {
					sp.memberIndent = indentBefore(data, mEnd-len(quote(mkey)))
					firstMember = false
				}
				start := valueStartAfter(data, mEnd)
				if err := skipValue(dec); err != nil {
					return sp, err
				}
				end := int(dec.InputOffset())
				if mkey == name {
					sp.valueStart, sp.valueEnd = start, end
				}
				sp.serversLast = end
			}
			if _, err := dec.Token(); err != nil { // }
				return sp, err
			}
			sp.serversClose = int(dec.InputOffset()) - 1
			if firstMember {
				sp.memberIndent = sp.topIndent + "  "
			}
			sp.topLast = int(dec.InputOffset())
			continue
		}
		if err := skipValue(dec); err != nil {
			return sp, err
		}
		sp.topLast = int(dec.InputOffset())
	}
	if _, err := dec.Token(); err != nil {
		return sp, err
	}
	sp.topClose = int(dec.InputOffset()) - 1
	return sp, nil
}

// valueStartAfter is the offset of the value after a key ending at i: past spaces and ':'.
func valueStartAfter(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r' || data[i] == ':') {
		i++
	}
	return i
}

// indentBefore is the whitespace between the start of the line holding offset i and i, or
// two spaces when something else precedes it on that line (a one-line file).
func indentBefore(data []byte, i int) string {
	j := i
	for j > 0 && (data[j-1] == ' ' || data[j-1] == '\t') {
		j--
	}
	if j > 0 && data[j-1] != '\n' {
		return "  "
	}
	return string(data[j:i])
}

// skipValue reads one whole value off dec.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
