package geminitest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"
)

var (
	uploadPath = regexp.MustCompile(`^/upload/(?:v1|v1beta|v1alpha)/files$`)
	// The SDK downloads from /v1beta/files/{id}:download?alt=media; the API's download
	// URIs may also carry a /download prefix.
	filePath   = regexp.MustCompile(`^(/download)?/(?:v1|v1beta|v1alpha)/files/([^/:]+)(:download)?$`)
	fileIDChar = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)
)

// fileLifetime is how long the API keeps a file.
const fileLifetime = 48 * time.Hour

// storedFile is a file held by the server. Guarded by Server.bmu; data is never modified.
type storedFile struct {
	name, displayName, mimeType string
	source                      genai.FileSource
	data                        []byte
	created                     time.Time
}

// pendingUpload is a resumable upload that has not been finalized.
type pendingUpload struct {
	name, displayName, mimeType string
	data                        []byte
}

// freeFileName returns "files/" + prefix + a number + suffix, a name no file has; s.bmu
// is held. Only lowercase letters and digits: the SDK takes a download URI's file ID to
// be the longest such prefix of what follows "files/".
func (s *Server) freeFileName(prefix, suffix string) string {
	for {
		s.nextFile++
		name := "files/" + prefix + strconv.Itoa(s.nextFile) + suffix
		if s.files[name] == nil {
			return name
		}
	}
}

// newFile stores a file; s.bmu is held.
func (s *Server) newFile(name, displayName, mimeType string, source genai.FileSource, data []byte) *storedFile {
	f := &storedFile{name: name, displayName: displayName, mimeType: mimeType, source: source, data: data, created: time.Now()}
	s.files[name] = f
	return f
}

// FileData returns the content of the file name ("files/{id}"): an uploaded input or a
// results file.
func (s *Server) FileData(name string) ([]byte, bool) {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	f := s.files[name]
	if f == nil {
		return nil, false
	}
	return f.data, true
}

// resource renders the file as the API does. Only generated files have a download URI,
// as the SDK's File documents.
func (s *Server) resource(f *storedFile) *genai.File {
	size := int64(len(f.data))
	sum := sha256.Sum256(f.data)
	out := &genai.File{
		Name:           f.name,
		DisplayName:    f.displayName,
		MIMEType:       f.mimeType,
		SizeBytes:      &size,
		CreateTime:     f.created.UTC(),
		UpdateTime:     f.created.UTC(),
		ExpirationTime: f.created.Add(fileLifetime).UTC(),
		Sha256Hash:     base64.StdEncoding.EncodeToString(sum[:]),
		URI:            s.URL() + "/v1beta/" + f.name,
		State:          genai.FileStateActive,
		Source:         f.source,
	}
	if f.source == genai.FileSourceGenerated {
		out.DownloadURI = s.URL() + "/v1beta/" + f.name + ":download?alt=media"
	}
	return out
}

// serveFiles answers the Files API paths; it reports false for any other path.
func (s *Server) serveFiles(w http.ResponseWriter, r *http.Request) bool {
	if uploadPath.MatchString(r.URL.Path) && r.Method == http.MethodPost {
		if id := r.URL.Query().Get("upload_id"); id != "" {
			s.uploadChunk(w, r, id)
			return true
		}
		if s.refuse(w, r, KindFileUpload) {
			return true
		}
		s.startUpload(w, r)
		return true
	}
	m := filePath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		return false
	}
	name, download := "files/"+m[2], m[3] != ""
	var kind string
	switch {
	case download && r.Method == http.MethodGet:
		kind = KindFileDownload
		s.bcount.downloads.Add(1)
	case !download && m[1] == "" && r.Method == http.MethodGet:
		kind = KindFileGet
		s.bcount.fileGets.Add(1)
	case !download && m[1] == "" && r.Method == http.MethodDelete:
		kind = KindFileDelete
	default:
		return false
	}
	if s.refuse(w, r, kind) {
		return true
	}
	s.bmu.Lock()
	f := s.files[name]
	if f != nil && kind == KindFileDelete {
		delete(s.files, name)
	}
	s.bmu.Unlock()
	if f == nil {
		// What the API answers for a file that does not exist, or is someone else's.
		writeError(w, &Reply{Status: http.StatusForbidden, ErrorMessage: "You do not have permission to access the File " + m[2] + " or it may not exist."})
		return true
	}
	switch kind {
	case KindFileGet:
		writeJSON(w, http.StatusOK, s.resource(f))
	case KindFileDelete:
		writeJSON(w, http.StatusOK, struct{}{})
	case KindFileDownload:
		if r.URL.Query().Get("alt") != "media" {
			badRequest(w, "Downloading a file requires alt=media.")
			return true
		}
		w.Header().Set("Content-Type", f.mimeType)
		w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(f.data)
	}
	return true
}

// startUpload answers the start of a resumable upload, as Files.Upload sends it: the
// file's metadata in the body, the protocol in X-Goog-Upload-* headers, and the upload
// URL in the X-Goog-Upload-URL header of the answer.
func (s *Server) startUpload(w http.ResponseWriter, r *http.Request) {
	if p := r.Header.Get("X-Goog-Upload-Protocol"); p != "resumable" {
		badRequest(w, "Unsupported upload protocol "+strconv.Quote(p)+"; this server takes resumable uploads.")
		return
	}
	if c := r.Header.Get("X-Goog-Upload-Command"); c != "start" {
		badRequest(w, "Invalid upload command "+strconv.Quote(c)+".")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var meta struct {
		File *genai.File `json:"file"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &meta); err != nil {
			badRequest(w, "Invalid JSON payload received. "+err.Error())
			return
		}
	}
	u := &pendingUpload{mimeType: r.Header.Get("X-Goog-Upload-Header-Content-Type")}
	if f := meta.File; f != nil {
		u.name, u.displayName = f.Name, f.DisplayName
		if u.mimeType == "" {
			u.mimeType = f.MIMEType
		}
	}
	if u.mimeType == "" {
		u.mimeType = "application/octet-stream"
	}
	if u.name != "" && !fileIDChar.MatchString(strings.TrimPrefix(u.name, "files/")) {
		badRequest(w, "Invalid file name "+strconv.Quote(u.name)+": the ID may hold up to 40 lowercase letters, digits or dashes, and may not start or end with a dash.")
		return
	}

	s.bmu.Lock()
	if u.name != "" && s.files[u.name] != nil {
		s.bmu.Unlock()
		writeError(w, &Reply{Status: http.StatusConflict, ErrorStatus: "ALREADY_EXISTS", ErrorMessage: "A file named " + u.name + " already exists."})
		return
	}
	s.nextUpload++
	id := "fakeupload" + strconv.Itoa(s.nextUpload)
	s.uploads[id] = u
	s.bmu.Unlock()

	w.Header().Set("X-Goog-Upload-Status", "active")
	w.Header().Set("X-Goog-Upload-URL", s.URL()+"/upload/v1beta/files?upload_id="+id+"&upload_protocol=resumable")
	w.Header().Set("X-Goog-Upload-Chunk-Granularity", "262144")
	w.WriteHeader(http.StatusOK)
}

// uploadChunk takes a chunk of a resumable upload. Every answer carries
// X-Goog-Upload-Status: the SDK retries a chunk whose answer lacks it.
func (s *Server) uploadChunk(w http.ResponseWriter, r *http.Request, id string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	cmd := r.Header.Get("X-Goog-Upload-Command")
	upload := strings.Contains(cmd, "upload")
	finalize := strings.Contains(cmd, "finalize")

	s.bmu.Lock()
	defer s.bmu.Unlock()
	u := s.uploads[id]
	if u == nil {
		w.Header().Set("X-Goog-Upload-Status", "final")
		writeError(w, &Reply{Status: http.StatusNotFound, ErrorMessage: "Unknown upload " + id + "."})
		return
	}
	if !upload && !finalize {
		w.Header().Set("X-Goog-Upload-Status", "active")
		badRequest(w, "Invalid upload command "+strconv.Quote(cmd)+".")
		return
	}
	if upload {
		off, err := strconv.Atoi(r.Header.Get("X-Goog-Upload-Offset"))
		if err != nil || off != len(u.data) {
			w.Header().Set("X-Goog-Upload-Status", "active")
			badRequest(w, "Invalid upload offset "+strconv.Quote(r.Header.Get("X-Goog-Upload-Offset"))+"; expected "+strconv.Itoa(len(u.data))+".")
			return
		}
		u.data = append(u.data, body...)
	}
	if !finalize {
		w.Header().Set("X-Goog-Upload-Status", "active")
		w.WriteHeader(http.StatusOK)
		return
	}
	delete(s.uploads, id)
	name := u.name
	if name == "" {
		name = s.freeFileName("upload", "")
	} else if !strings.HasPrefix(name, "files/") {
		name = "files/" + name
	}
	f := s.newFile(name, u.displayName, u.mimeType, genai.FileSourceUploaded, u.data)
	s.bcount.uploads.Add(1)
	w.Header().Set("X-Goog-Upload-Status", "final")
	writeJSON(w, http.StatusOK, map[string]any{"file": s.resource(f)})
}
