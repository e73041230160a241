package alert

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/alertchat/alertchat/pkg/format"
)

// Severities, one scale for every tool, most severe first.
const (
	SeverityCritical = "critical"
	SeverityHigh     = "high"
	SeverityMedium   = "medium"
	SeverityLow      = "low"
	SeverityInfo     = "info"
)

// Severities lists the scale, most severe first.
var Severities = []string{SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo}

// Sources of the schemas this package knows.
const (
	SourceGuardDuty   = "guardduty"
	SourceSecurityHub = "securityhub"
	SourceSCC         = "scc"
	SourceSuricata    = "suricata"
	SourceFalco       = "falco"
	SourceGCPAudit    = "gcp-audit"
	SourceK8sAudit    = "k8s-audit"
	SourceOkta        = "okta"
)

// Statuses of findings that their tool closed (record.Alert.Status).
const (
	StatusResolved   = "resolved"
	StatusSuppressed = "suppressed"
	StatusArchived   = "archived"
	StatusInactive   = "inactive"
)

// facts are what a finding's schema says about it.
type facts struct {
	title, severity, source string
	time                    time.Time
	// status is set when the tool closed the finding (see record.Alert.Status).
	status string
	// event is set for a record of an event stream that is not an alert: its kind.
	event string
}

// describe reads a finding's title, severity, source and time from its known schema, or
// guesses the title (and a severity written as a word) of JSON of no known schema.
func describe(v map[string]any) facts {
	switch {
	case isASFF(v):
		return asffFacts(v)
	case isGuardDuty(v):
		return guardDutyFacts(v)
	case isSCCFinding(v):
		return sccFacts(v)
	case isSuricata(v):
		return suricataFacts(v)
	case isFalco(v):
		return falcoFacts(v)
	case isGCPAudit(v):
		return gcpAuditFacts(v)
	case isK8sAudit(v):
		return k8sAuditFacts(v)
	case isOkta(v):
		return oktaFacts(v)
	}
	return facts{title: Title(v), severity: severityWord(firstString(v, "severity", "Severity", "level", "priority")),
		time: firstTime(v, "time", "timestamp", "@timestamp", "eventTime", "event_time", "createdAt", "created_at", "CreatedAt")}
}

// get returns v[k], else v[k with its first letter lowered]: the AWS CLI prints PascalCase,
// EventBridge events carry the same finding in camelCase.
func get(v map[string]any, k string) any {
	if x, ok := v[k]; ok {
		return x
	}
	return v[strings.ToLower(k[:1])+k[1:]]
}

func str(v map[string]any, k string) string {
	s, _ := get(v, k).(string)
	return strings.TrimSpace(s)
}

func obj(v map[string]any, k string) map[string]any {
	m, _ := get(v, k).(map[string]any)
	return m
}

func num(x any) (float64, bool) {
	switch n := x.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil
	}
	return 0, false
}

// firstString is the first of keys (see get) that holds a string that is not blank, trimmed.
func firstString(v map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(v, k); s != "" {
			return s
		}
	}
	return ""
}

// firstTime is the first of keys (see get) that holds a time as the tools write one.
func firstTime(v map[string]any, keys ...string) time.Time {
	for _, k := range keys {
		if t, ok := parseTime(str(v, k)); ok {
			return t
		}
	}
	return time.Time{}
}

// timeLayouts are the ways the tools write a time (Suricata: "+0000" without a colon).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05"}

func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// AtLeast is the severities at least as severe as sev (any case): "high" is critical and high.
// It is nil for "" and for a word not on the scale. An alert of no known severity is never at
// least anything.
func AtLeast(sev string) []string {
	i := slices.Index(Severities, strings.ToLower(strings.TrimSpace(sev)))
	if i < 0 {
		return nil
	}
	return slices.Clone(Severities[:i+1])
}

// severityWord maps a severity written as a word (any case) onto the scale, or "".
func severityWord(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "critical", "crit":
		return SeverityCritical
	case "high":
		return SeverityHigh
	case "medium", "moderate", "med":
		return SeverityMedium
	case "low":
		return SeverityLow
	case "info", "informational", "information":
		return SeverityInfo
	}
	return ""
}

// GuardDuty: https://docs.aws.amazon.com/guardduty/latest/ug/guardduty_findings-severity.html
// (Low 1.0-3.9, Medium 4.0-6.9, High 7.0-8.9, Critical 9.0-10.0).
func isGuardDuty(v map[string]any) bool {
	_, sev := num(get(v, "Severity"))
	return sev && str(v, "SchemaVersion") != "" && str(v, "Type") != "" && strings.Contains(str(v, "Arn"), ":guardduty:")
}

func guardDutyFacts(v map[string]any) facts {
	f := facts{title: oneLine(str(v, "Title")), source: SourceGuardDuty}
	if f.title == "" {
		f.title = oneLine(str(v, "Type"))
	}
	if s, ok := num(get(v, "Severity")); ok {
		f.severity = guardDutySeverity(s)
	}
	f.time = firstTime(v, "UpdatedAt", "CreatedAt")
	// A finding archived in GuardDuty (by hand or by a suppression rule) says so in
	// Service.Archived.
	if archived, _ := get(obj(v, "Service"), "Archived").(bool); archived {
		f.status = StatusArchived
	}
	return f
}

func guardDutySeverity(s float64) string {
	switch {
	case s >= 9:
		return SeverityCritical
	case s >= 7:
		return SeverityHigh
	case s >= 4:
		return SeverityMedium
	case s >= 1:
		return SeverityLow
	}
	return SeverityInfo
}

// ASFF (Security Hub): Severity.Label, else Severity.Normalized 0-100
// (https://docs.aws.amazon.com/securityhub/latest/userguide/asff-required-attributes.html).
func isASFF(v map[string]any) bool {
	return str(v, "SchemaVersion") == "2018-10-08" && str(v, "ProductArn") != ""
}

func asffFacts(v map[string]any) facts {
	f := facts{title: oneLine(str(v, "Title")), source: SourceSecurityHub, time: firstTime(v, "UpdatedAt", "CreatedAt"),
		status: asffStatus(v)}
	sev := obj(v, "Severity")
	if sev == nil {
		return f
	}
	if f.severity = severityWord(str(sev, "Label")); f.severity != "" {
		return f
	}
	if n, ok := num(get(sev, "Normalized")); ok {
		switch {
		case n >= 90:
			f.severity = SeverityCritical
		case n >= 70:
			f.severity = SeverityHigh
		case n >= 40:
			f.severity = SeverityMedium
		case n >= 1:
			f.severity = SeverityLow
		default:
			f.severity = SeverityInfo
		}
	}
	return f
}

// asffStatus is a Security Hub finding's closed status: RecordState ARCHIVED (the provider no
// longer reports it), else Workflow.Status RESOLVED or SUPPRESSED (the deprecated WorkflowState
// when Workflow is missing); "" while it is open (NEW, NOTIFIED).
// https://docs.aws.amazon.com/securityhub/1.0/APIReference/API_AwsSecurityFinding.html
func asffStatus(v map[string]any) string {
	if strings.EqualFold(str(v, "RecordState"), "ARCHIVED") {
		return StatusArchived
	}
	status := str(obj(v, "Workflow"), "Status")
	if status == "" {
		status = str(v, "WorkflowState")
	}
	switch strings.ToUpper(status) {
	case "RESOLVED":
		return StatusResolved
	case "SUPPRESSED":
		return StatusSuppressed
	}
	return ""
}

// Security Command Center's Finding: its name is .../sources/S/findings/F, its severity
// CRITICAL, HIGH, MEDIUM, LOW (or SEVERITY_UNSPECIFIED).
func isSCCFinding(v map[string]any) bool {
	name, _ := v["name"].(string)
	return strings.Contains(name, "/sources/") && strings.Contains(name, "/findings/")
}

func sccFacts(v map[string]any) facts {
	f := facts{title: oneLine(firstString(v, "category")), source: SourceSCC, severity: severityWord(firstString(v, "severity")),
		time: firstTime(v, "eventTime", "createTime")}
	if f.title == "" {
		f.title = Title(v)
	}
	// state is ACTIVE or INACTIVE (the issue was fixed, or the finding is no longer relevant).
	if strings.EqualFold(firstString(v, "state"), "INACTIVE") {
		f.status = StatusInactive
	}
	return f
}

// Suricata's eve.json: every record has event_type and, for an alert, alert.signature and
// alert.severity (1 most severe, from classification.config's priorities). A record of another
// kind (flow, dns, http, tls, stats, ...) holds an object named after its kind, or a flow.
// https://docs.suricata.io/en/latest/output/eve/eve-json-format.html
func isSuricata(v map[string]any) bool {
	et, _ := v["event_type"].(string)
	_, flow := v["flow_id"]
	_, src := v["src_ip"]
	_, own := v[et]
	return et != "" && (flow || src || own)
}

func suricataFacts(v map[string]any) facts {
	f := facts{source: SourceSuricata, time: firstTime(v, "timestamp")}
	et, _ := v["event_type"].(string)
	if a, ok := v["alert"].(map[string]any); ok {
		f.title = oneLine(firstString(a, "signature", "category"))
		if n, ok := num(a["severity"]); ok {
			switch {
			case n <= 1:
				f.severity = SeverityHigh
			case n == 2:
				f.severity = SeverityMedium
			case n == 3:
				f.severity = SeverityLow
			default:
				f.severity = SeverityInfo
			}
		}
	}
	if et != "alert" {
		f.event = et
	}
	if f.title == "" {
		f.title = "Suricata " + et
		if src, dst := firstString(v, "src_ip"), firstString(v, "dest_ip"); src != "" || dst != "" {
			f.title += " " + src + " -> " + dst
		}
		f.title = oneLine(f.title)
	}
	return f
}

// Falco's JSON output: rule, priority (Emergency .. Debug), output, time.
func isFalco(v map[string]any) bool {
	_, rule := v["rule"].(string)
	_, prio := v["priority"].(string)
	_, out := v["output"].(string)
	return rule && prio && out
}

func falcoFacts(v map[string]any) facts {
	f := facts{title: oneLine(firstString(v, "rule")), source: SourceFalco, time: firstTime(v, "time")}
	switch strings.ToLower(firstString(v, "priority")) {
	case "emergency", "alert", "critical":
		f.severity = SeverityCritical
	case "error":
		f.severity = SeverityHigh
	case "warning":
		f.severity = SeverityMedium
	case "notice":
		f.severity = SeverityLow
	case "informational", "info", "debug":
		f.severity = SeverityInfo
	}
	return f
}

// A Cloud Audit Logs entry (LogEntry with an AuditLog protoPayload): who called which method.
// https://cloud.google.com/logging/docs/reference/audit/auditlog/rest/Shared.Types/AuditLog
func isGCPAudit(v map[string]any) bool {
	p := obj(v, "protoPayload")
	t, _ := p["@type"].(string)
	return strings.HasSuffix(t, "google.cloud.audit.AuditLog")
}

func gcpAuditFacts(v map[string]any) facts {
	p := obj(v, "protoPayload")
	method := firstString(p, "methodName")
	who := str(obj(p, "authenticationInfo"), "principalEmail")
	title := method
	if who != "" {
		title += " by " + who
		if format.Width(title) > MaxTitleWidth {
			// The method's own name keeps the principal in the title:
			// google.iam.admin.v1.CreateServiceAccountKey, v1.compute.instances.insert.
			parts := strings.Split(method, ".")
			short := parts[len(parts)-1]
			if len(parts) > 1 && short != "" && !unicode.IsUpper(firstRune(short)) {
				short = parts[len(parts)-2] + "." + short
			}
			title = short + " by " + who
		}
	}
	if title == "" {
		title = firstString(p, "serviceName")
	}
	f := facts{title: oneLine(title), source: SourceGCPAudit, time: firstTime(v, "timestamp", "receiveTimestamp")}
	// LogSeverity: https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry#logseverity
	switch strings.ToUpper(firstString(v, "severity")) {
	case "EMERGENCY", "ALERT", "CRITICAL":
		f.severity = SeverityCritical
	case "ERROR":
		f.severity = SeverityHigh
	case "WARNING":
		f.severity = SeverityMedium
	case "NOTICE":
		f.severity = SeverityLow
	case "INFO", "DEBUG":
		f.severity = SeverityInfo
	}
	return f
}

// A Kubernetes API server audit event (audit.k8s.io/v1 Event): who did what to which object.
// It carries no severity. https://kubernetes.io/docs/reference/config-api/apiserver-audit.v1/
func isK8sAudit(v map[string]any) bool {
	kind, _ := v["kind"].(string)
	api, _ := v["apiVersion"].(string)
	return kind == "Event" && strings.HasPrefix(api, "audit.k8s.io/")
}

func k8sAuditFacts(v map[string]any) facts {
	ref := obj(v, "objectRef")
	what := firstString(ref, "resource")
	if sub := firstString(ref, "subresource"); sub != "" {
		what += "/" + sub
	}
	if name := firstString(ref, "name"); name != "" {
		what += " " + name
	}
	if ns := firstString(ref, "namespace"); ns != "" {
		what += " in " + ns
	}
	if what == "" {
		what = firstString(v, "requestURI")
	}
	title := strings.TrimSpace(firstString(v, "verb") + " " + what)
	if who := str(obj(v, "user"), "username"); who != "" {
		title += " by " + who
	}
	return facts{title: oneLine(title), source: SourceK8sAudit, time: firstTime(v, "stageTimestamp", "requestReceivedTimestamp")}
}

// An Okta System Log event (LogEvent): displayMessage, eventType, severity DEBUG, INFO, WARN
// or ERROR, published. https://developer.okta.com/docs/reference/api/system-log/
func isOkta(v map[string]any) bool {
	_, uuid := v["uuid"].(string)
	_, et := v["eventType"].(string)
	_, published := v["published"].(string)
	return uuid && et && published
}

func oktaFacts(v map[string]any) facts {
	title := firstString(v, "displayMessage")
	if title == "" {
		title = firstString(v, "eventType")
	}
	if who := firstString(obj(v, "actor"), "alternateId"); who != "" {
		title += " by " + who
	}
	f := facts{title: oneLine(title), source: SourceOkta, time: firstTime(v, "published")}
	switch strings.ToUpper(firstString(v, "severity")) {
	case "ERROR":
		f.severity = SeverityHigh
	case "WARN":
		f.severity = SeverityMedium
	case "INFO", "DEBUG":
		f.severity = SeverityInfo
	}
	return f
}
