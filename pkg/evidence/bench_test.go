package evidence

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchMB is the size of the benchmarks' data, in MB: EVIDENCE_BENCH_MB, default small enough
// for a shared machine (the figures are per byte: b.SetBytes reports MB/s).
func benchMB(def int) int64 {
	if n, err := strconv.Atoi(os.Getenv("EVIDENCE_BENCH_MB")); err == nil && n > 0 {
		return int64(n)
	}
	return int64(def)
}

// writeLogs writes about mb MB of syslog-like lines to path (gzip'd when it ends in .gz),
// streamed; one line in 100k holds 203.0.113.7.
func writeLogs(b *testing.B, path string, mb int64) int64 {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var w *bufio.Writer
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw = gzip.NewWriter(f)
		w = bufio.NewWriterSize(zw, 1<<20)
	} else {
		w = bufio.NewWriterSize(f, 1<<20)
	}
	r := rand.New(rand.NewPCG(7, 7))
	users := []string{"alice", "bob", "carol", "deploy", "root"}
	var n int64
	for i := 0; n < mb<<20; i++ {
		ip := fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256))
		if i%100_000 == 99_999 {
			ip = "203.0.113.7"
		}
		k, _ := fmt.Fprintf(w, "Nov 20 10:%02d:%02d web%d sshd[%d]: Accepted publickey for %s from %s port %d ssh2: ED25519 SHA256:%016x\n",
			r.IntN(60), r.IntN(60), r.IntN(9), r.IntN(65536), users[r.IntN(len(users))], ip, 1024+r.IntN(60000), r.Uint64())
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// BenchmarkGrepPlain: grep_evidence over plain logs (target: 1 GB in under 5 s on one core,
// i.e. over 200 MB/s; run with -cpu 1).
func BenchmarkGrepPlain(b *testing.B) {
	dir := b.TempDir()
	size := writeLogs(b, filepath.Join(dir, "auth.log"), benchMB(256))
	s := openSet(b, dir)
	for _, c := range []struct {
		name string
		o    GrepOptions
	}{
		{"literal", GrepOptions{Pattern: `203\.0\.113\.7`, Limit: 1000}},
		// The same kind of search with ignore_case, side by side with the case-sensitive one.
		{"literal_ignore_case", GrepOptions{Pattern: `FROM 203\.0\.113\.7 PORT`, IgnoreCase: true, Limit: 1000}},
		{"ignore_case", GrepOptions{Pattern: `accepted publickey for \w+ from 203\.0`, IgnoreCase: true, Limit: 1000}},
		{"class", GrepOptions{Pattern: `from 203\.\d+\.\d+\.\d+ port`, Limit: 1000}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				res, err := s.Grep(context.Background(), c.o)
				if err != nil || len(res.Matches) == 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}

// BenchmarkGrepGzip: grep_evidence over a .gz beside `zcat FILE | grep -c PATTERN` on the same
// file (target: within 2x).
func BenchmarkGrepGzip(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "auth.log.gz")
	size := writeLogs(b, path, benchMB(256))
	s := openSet(b, dir)
	b.Run("alertchat", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			res, err := s.Grep(context.Background(), GrepOptions{Pattern: `203\.0\.113\.7`, Limit: 1000})
			if err != nil || len(res.Matches) == 0 {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("zcat-grep", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			out, err := exec.Command("sh", "-c", `zcat "$1" | grep -c '203\.0\.113\.7'`, "sh", path).Output()
			if err != nil || strings.TrimSpace(string(out)) == "0" {
				b.Fatal(string(out), err)
			}
		}
	})
}

// writeNDJSON writes about mb MB of CloudTrail-like NDJSON records to path, streamed.
func writeNDJSON(b *testing.B, path string, mb int64) int64 {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(3, 4))
	names := []string{"ConsoleLogin", "ListBuckets", "GetObject", "AssumeRole", "DescribeInstances"}
	var n int64
	for i := 0; n < mb<<20; i++ {
		ip := fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256))
		if i%10_000 == 0 {
			ip = "203.0.113.7"
		}
		k, _ := fmt.Fprintf(w, `{"eventVersion":"1.08","eventTime":"2026-11-20T10:%02d:%02dZ","eventSource":"s3.amazonaws.com","eventName":"%s","awsRegion":"us-east-1","sourceIPAddress":"%s","userAgent":"aws-cli/2.15","userIdentity":{"type":"IAMUser","principalId":"AIDA%012d","userName":"user%d"},"requestParameters":{"bucketName":"logs-%d"},"eventID":"%016x","readOnly":true}`+"\n",
			r.IntN(60), r.IntN(60), names[r.IntN(len(names))], ip, r.IntN(1e12), r.IntN(50), r.IntN(20), r.Uint64())
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return n
}

const benchQuery = `SELECT eventName, json_extract(userIdentity, '$.userName') AS user, count(*) AS n
FROM cloudtrail WHERE sourceIPAddress = '203.0.113.7' GROUP BY 1, 2 ORDER BY n DESC`

// BenchmarkQueryFirst: the first query_evidence over NDJSON, the index built (targets: 200 MB
// in under 20 s). peak-RSS-MB is the process's peak resident set (VmHWM) after the builds.
func BenchmarkQueryFirst(b *testing.B) {
	dir := b.TempDir()
	size := writeNDJSON(b, filepath.Join(dir, "cloudtrail.ndjson"), benchMB(200))
	b.SetBytes(size)
	firstQueries(b, dir, benchQuery)
}

// BenchmarkQueryLater: a query over the same files once the index is built (target: under 2 s).
func BenchmarkQueryLater(b *testing.B) {
	dir := b.TempDir()
	writeNDJSON(b, filepath.Join(dir, "cloudtrail.ndjson"), benchMB(200))
	s := openSet(b, dir)
	if _, err := s.Query(context.Background(), benchQuery, 100); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := s.Query(context.Background(), benchQuery, 100)
		if err != nil || len(res.Rows) == 0 {
			b.Fatal(res, err)
		}
	}
}

// cpuSeconds is the CPU time the process has used (Linux /proc/self/stat: user and system),
// 0 elsewhere: on a shared machine it says what a build costs when the wall time cannot.
func cpuSeconds() float64 {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return (u + k) / 100 // clock ticks: USER_HZ is 100 on Linux
}

// peakRSSMB is the process's peak resident set size (Linux VmHWM), in MB.
func peakRSSMB(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return float64(kb) / 1024
		}
	}
	return 0
}

// writeZeek writes about mb MB of a Zeek conn.log to path, streamed, with the header lines Zeek
// writes; one connection in 10k goes to 203.0.113.7.
func writeZeek(b *testing.B, path string, mb int64) int64 {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	head := "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#open\t2026-11-20-10-00-00\n" +
		"#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tservice\tduration\torig_bytes\tresp_bytes\tconn_state\tlocal_orig\tlocal_resp\tmissed_bytes\thistory\torig_pkts\torig_ip_bytes\tresp_pkts\tresp_ip_bytes\ttunnel_parents\n" +
		"#types\ttime\tstring\taddr\tport\taddr\tport\tenum\tstring\tinterval\tcount\tcount\tstring\tbool\tbool\tcount\tstring\tcount\tcount\tcount\tcount\tset[string]\n"
	n, _ := w.WriteString(head)
	size := int64(n)
	r := rand.New(rand.NewPCG(5, 6))
	services := []string{"ssl", "http", "dns", "-", "ssh"}
	for i := 0; size < mb<<20; i++ {
		dst := fmt.Sprintf("%d.%d.%d.%d", 1+r.IntN(223), r.IntN(256), r.IntN(256), r.IntN(256))
		if i%10_000 == 0 {
			dst = "203.0.113.7"
		}
		k, _ := fmt.Fprintf(w, "%d.%06d\tC%016x\t10.0.%d.%d\t%d\t%s\t%d\ttcp\t%s\t%d.%06d\t%d\t%d\tSF\tT\tF\t0\tShADadFf\t%d\t%d\t%d\t%d\t(empty)\n",
			1795168800+i/100, r.IntN(1e6), r.Uint64(), r.IntN(256), r.IntN(256), 1024+r.IntN(60000), dst, []int{443, 80, 53, 22}[r.IntN(4)],
			services[r.IntN(len(services))], r.IntN(30), r.IntN(1e6), r.IntN(1e5), r.IntN(1e7), r.IntN(100), r.IntN(1e5), r.IntN(100), r.IntN(1e7))
		size += int64(k)
	}
	_, _ = w.WriteString("#close\t2026-11-20-11-00-00\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return size
}

// BenchmarkQueryFirstZeek: the first query_evidence over a Zeek conn.log, the table built
// (target, as for NDJSON: 200 MB in under 20 s on one core, memory flat).
func BenchmarkQueryFirstZeek(b *testing.B) {
	dir := b.TempDir()
	size := writeZeek(b, filepath.Join(dir, "conn.log"), benchMB(200))
	b.SetBytes(size)
	const q = `SELECT "id.orig_h", count(*) AS n, sum(orig_bytes) FROM conn WHERE "id.resp_h" = '203.0.113.7' GROUP BY 1 ORDER BY n DESC`
	firstQueries(b, dir, q)
}

// BenchmarkQueryFirstEVTX builds the table of an event log of benchMB(100) MB: the Sysmon
// sample's chunk again and again (each chunk stands alone, its templates with it).
func BenchmarkQueryFirstEVTX(b *testing.B) {
	dir := b.TempDir()
	sample := evtxSample(b, "sysmon-first-chunk.evtx")
	f, err := os.Create(filepath.Join(dir, "sysmon.evtx"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	_, _ = w.Write(sample[:evtxHeaderSize])
	size := int64(evtxHeaderSize)
	for ; size < benchMB(100)<<20; size += evtxChunkSize {
		_, _ = w.Write(sample[evtxHeaderSize : evtxHeaderSize+evtxChunkSize])
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	const q = `SELECT json_extract(EventData, '$.Image') AS image, count(*) AS n FROM sysmon WHERE EventID = 1 GROUP BY 1 ORDER BY n DESC`
	firstQueries(b, dir, q)
}

// firstQueries runs query over the files in dir, each time with an empty cache, so that every
// run builds the tables first; it reports the CPU seconds a run takes and the peak memory.
func firstQueries(b *testing.B, dir, query string) {
	b.Helper()
	cpu0 := cpuSeconds()
	for b.Loop() {
		s, err := Open([]string{dir}, Options{CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Query(context.Background(), query, 100)
		if err != nil || len(res.Rows) == 0 {
			b.Fatal(res, err)
		}
		_ = s.Close()
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(peakRSSMB(b), "peak-RSS-MB")
}
