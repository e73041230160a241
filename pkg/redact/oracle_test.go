package redact

import "testing"

func TestOracleLogins(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) { sc.scanOracleLogins(s) }
	checkRecognizer(t, "scanOracleLogins", run, []recognizerCase{
		{"sqlplus scott/T1ger-dTYGm8bq@//ora01.acme.internal:1521/ORCLPDB1", "SECRET:T1ger-dTYGm8bq"},
		{"url=jdbc:oracle:thin:scott/T1ger-x9Q@//ora01:1521/PDB1", "SECRET:T1ger-x9Q"},
		{"rman target sys/Or4cle-Pw@prod", "SECRET:Or4cle-Pw"},
		{"sqlldr userid=scott/T1ger-x9Q@orcl control=load.ctl", "SECRET:T1ger-x9Q"},
		{"sqlplus / as sysdba", ""},
		{"sqlplus -s app/${DB_PASS}@db", ""},
		{"sqlplus app/<password>@db", ""},
		{"docs at https://example.com/user/alice@example.com", ""}, // no Oracle tool on the line
		{"sqlplus report @/tmp/q.sql", ""},
	})
}
