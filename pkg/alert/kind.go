package alert

import "encoding/json"

// Type is a stored alert's type or rule name as its tool spells it: GuardDuty's Type,
// Security Hub's first Types entry, Security Command Center's category, Suricata's signature,
// Falco's rule, a Cloud Audit Logs entry's method; "" for JSON of no known schema. Reports
// and team knowledge match alerts by it.
func Type(data []byte) string {
	var v map[string]any
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	if d, ok := v["detail"].(map[string]any); ok {
		v = d // an EventBridge event carries the finding in detail
	}
	if f, ok := v["finding"].(map[string]any); ok && isSCCFinding(f) {
		v = f // a Security Command Center notification
	}
	switch {
	case isASFF(v):
		if ts, ok := get(v, "Types").([]any); ok && len(ts) > 0 {
			if s, ok := ts[0].(string); ok {
				return oneLine(s)
			}
		}
		return ""
	case isGuardDuty(v):
		return oneLine(str(v, "Type"))
	case isSCCFinding(v):
		return oneLine(firstString(v, "category"))
	case isSuricata(v):
		return oneLine(firstString(obj(v, "alert"), "signature"))
	case isFalco(v):
		return oneLine(firstString(v, "rule"))
	case isGCPAudit(v):
		return oneLine(firstString(obj(v, "protoPayload"), "methodName"))
	}
	return ""
}
