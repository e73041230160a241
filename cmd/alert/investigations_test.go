package alert_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// alert list and alert show -o json say how many investigations each alert had and the
// verdict of the one resolved last (null when none is).
func TestAlertInvestigations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	add := func(data string) record.AlertID {
		out, errOut, code := clitest.Run(t, dir, data, "alert", "add", "-f", "-")
		if code != 0 {
			t.Fatal(errOut)
		}
		return record.AlertID(strings.TrimSpace(out))
	}
	busy, quiet, fresh := add(`{"Title":"busy"}`), add(`{"Title":"quiet"}`), add(`{"Title":"fresh"}`)
	now := store.Now()
	b1, b2, b3 := clitest.NewHist(busy, "one", now), clitest.NewHist(busy, "two", now), clitest.NewHist(busy, "three", now)
	q1 := clitest.NewHist(quiet, "q", now)
	clitest.SeedHistories(t, dir, "default", b1, b2, b3, q1)
	clitest.SeedHistories(t, dir, "other", clitest.NewHist(fresh, "elsewhere", now))
	for _, r := range []struct {
		h *record.History
		v string
	}{{b1, "true_positive"}, {b2, "benign"}} {
		if _, errOut, code := clitest.Run(t, dir, "", "history", "resolve", string(r.h.ID), "--verdict", r.v); code != 0 {
			t.Fatal(errOut)
		}
	}
	type alertOut struct {
		ID             record.AlertID `json:"id"`
		Investigations *int           `json:"investigations"`
		Verdict        *string        `json:"verdict"`
		Data           json.RawMessage
	}
	out, errOut, code := clitest.Run(t, dir, "", "alert", "list", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var list []alertOut
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("%v: %s", err, out)
	}
	want := map[record.AlertID]struct {
		n int
		v string
	}{busy: {3, "benign"}, quiet: {1, ""}, fresh: {0, ""}}
	for _, a := range list {
		w := want[a.ID]
		if a.Investigations == nil || *a.Investigations != w.n || (w.v == "") != (a.Verdict == nil) || a.Verdict != nil && *a.Verdict != w.v {
			t.Errorf("alert %s: %v %v, want %d %q", a.ID, a.Investigations, a.Verdict, w.n, w.v)
		}
	}
	if !strings.Contains(out, `"verdict": null`) {
		t.Errorf("an alert without a resolved investigation must say null:\n%s", out)
	}
	out, _, _ = clitest.Run(t, dir, "", "alert", "show", string(busy), "-o", "json")
	var one alertOut
	if err := json.Unmarshal([]byte(out), &one); err != nil || *one.Investigations != 3 || *one.Verdict != "benign" || len(one.Data) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
}
