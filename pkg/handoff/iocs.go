package handoff

import (
	"encoding/csv"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/ioc"
	"github.com/alertchat/alertchat/pkg/record"
)

// IOC is one exported indicator: a raw value, its type and where it came from (alert, note,
// lesson).
type IOC struct {
	Type   string `json:"type"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Export is what an export of indicators holds, and what it left out.
type Export struct {
	IOCs []IOC
	// Redacted counts the values storage holds only as keyed tokens; ConversationOnly the raw
	// values only the conversation names. Neither is exported.
	Redacted         int
	ConversationOnly int
}

// IOCs are the report's exportable indicators.
func (r *Report) IOCs() Export {
	var e Export
	e.IOCs = []IOC{}
	for _, i := range r.Indicators {
		switch {
		case i.Redacted:
			e.Redacted++
		case !i.exportable:
			e.ConversationOnly++
		default:
			e.IOCs = append(e.IOCs, IOC{Type: i.Type, Value: i.Value, Source: exportSource(i.SeenIn)})
		}
	}
	return e
}

// exportSource is the first place an exported value was seen that a person vouches for.
func exportSource(seen []string) string {
	for _, s := range seen {
		if s == "alert" || strings.HasPrefix(s, "alert:") || s == "note" || strings.HasPrefix(s, "lesson ") {
			return s
		}
	}
	return seen[0]
}

// WriteCSV writes type,value,source with a header line.
func (e Export) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"type", "value", "source"})
	for _, i := range e.IOCs {
		_ = cw.Write([]string{i.Type, i.Value, i.Source})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return goerr.Wrap(err, "failed to write indicators")
	}
	return nil
}

// stixNamespace is the namespace STIX 2.1 gives for deterministic identifiers (section 2.9):
// the same type and value always make the same indicator ID, so a second export is the same.
var stixNamespace = uuid.MustParse("00abedb4-aa42-466c-9c01-fed23315a9b7")

// stixID is a deterministic STIX identifier of an object type: UUIDv5 of the type and name
// (an indicator's name is its indicator type and value).
func stixID(objType, name string) string {
	return objType + "--" + uuid.NewSHA1(stixNamespace, []byte(objType+"|"+name)).String()
}

// stixObjectPath is, for an indicator type, the STIX object path its value is compared with;
// "" for cloud resource IDs, which STIX has no cyber-observable for.
func stixObjectPath(t string) string {
	switch ioc.Type(t) {
	case ioc.IPv4:
		return "ipv4-addr:value"
	case ioc.IPv6:
		return "ipv6-addr:value"
	case ioc.Domain:
		return "domain-name:value"
	case ioc.URL:
		return "url:value"
	case ioc.Email:
		return "email-addr:value"
	case ioc.MD5:
		return "file:hashes.MD5"
	case ioc.SHA1:
		return "file:hashes.'SHA-1'"
	case ioc.SHA256:
		return "file:hashes.'SHA-256'"
	case ioc.SHA512:
		return "file:hashes.'SHA-512'"
	}
	return ""
}

// StixString is a STIX patterning string literal: in single quotes, a backslash and a
// quote escaped with a backslash.
func StixString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// indicatorTypes is the STIX indicator-type vocabulary's word for a verdict.
func indicatorTypes(v record.Verdict) []string {
	switch v {
	case record.VerdictTruePositive:
		return []string{"malicious-activity"}
	case record.VerdictEscalated:
		return []string{"anomalous-activity"}
	case record.VerdictFalsePositive, record.VerdictBenign:
		return []string{"benign"}
	}
	return []string{"unknown"}
}

// stixTime is a STIX timestamp: UTC, milliseconds.
func stixTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// STIX returns the report's indicators as a STIX 2.1 bundle: the workspace's identity, one
// indicator per value that STIX can express, and a report object referring to them, published
// when the investigation was resolved (last updated while it is open). Every ID and time comes
// from what is stored, so exporting twice gives the same bundle. skipped counts the values
// left out because STIX has no pattern for their type.
func (r *Report) STIX(e Export) (bundle map[string]any, skipped int) {
	created := stixTime(r.published)
	identity := map[string]any{
		"type": "identity", "spec_version": "2.1", "id": stixID("identity", "alertchat-workspace:"+r.workspace),
		"created": created, "modified": created, "name": "alertchat workspace " + r.workspace, "identity_class": "group",
	}
	objects := []any{identity}
	var refs []string
	for _, i := range e.IOCs {
		path := stixObjectPath(i.Type)
		if path == "" {
			skipped++
			continue
		}
		id := stixID("indicator", i.Type+":"+i.Value)
		objects = append(objects, map[string]any{
			"type": "indicator", "spec_version": "2.1", "id": id, "created": created, "modified": created,
			"created_by_ref": identity["id"], "name": i.Type + " " + i.Value,
			"description":     "seen in " + i.Source,
			"indicator_types": indicatorTypes(r.verdict),
			"pattern":         "[" + path + " = " + StixString(i.Value) + "]",
			"pattern_type":    "stix", "pattern_version": "2.1", "valid_from": stixTime(r.validFrom),
		})
		refs = append(refs, id)
	}
	if len(refs) == 0 {
		refs = []string{identity["id"].(string)} // a report refers to one object at least
	}
	report := map[string]any{
		"type": "report", "spec_version": "2.1", "id": stixID("report", "alertchat-history:"+r.HistoryID),
		"created": created, "modified": created, "created_by_ref": identity["id"], "name": r.Title,
		"report_types": []string{"indicator"}, "published": created, "object_refs": refs,
	}
	if v := r.Verdict; v != nil {
		report["description"] = "Verdict: " + strings.ReplaceAll(v.Verdict, "_", " ") + ", by " + v.ResolvedBy + "."
	}
	objects = append(objects, report)
	return map[string]any{"type": "bundle", "id": stixID("bundle", "alertchat-history:"+r.HistoryID), "objects": objects}, skipped
}
