package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mcp"
)

// AddOptions are "mcp add".
type AddOptions struct {
	*Deps
	Preset, Project, Region string
	Force, List             bool
}

// NewCmdAdd is "alertchat mcp add PRESET [--project P] [--region R] [--force]" and "mcp add
// --list": a hosted server analysts use, written into the user's mcp.json.
func NewCmdAdd(d *Deps, cfgFlag cli.Flag, runF func(context.Context, *AddOptions) error) *cli.Command {
	opts := &AddOptions{Deps: d}
	return &cli.Command{
		Name:      "add",
		Usage:     "add a hosted MCP server (virustotal, google-logging, google-bigquery, google-scc, google-secops) to mcp.json",
		ArgsUsage: "PRESET",
		Description: `Writes the entry of a hosted MCP server analysts use into the user's mcp.json (created 0600 when
missing; the rest of the file kept as it is) and prints it, with "trust": false. The presets:
virustotal (sign-in, "egress": "public-only"), google-logging, google-bigquery, google-scc and
google-secops (Application Default Credentials). An entry of the same name is kept unless --force.

Examples:
  alertchat mcp add --list
  alertchat mcp add google-secops --project my-project --region us
  alertchat mcp add virustotal

Exit status: 2 for an unknown preset (the presets are named) or a preset missing --project or
--region.`,
		Flags: []cli.Flag{cfgFlag,
			&cli.StringFlag{Name: "project", Usage: "the Google Cloud project billed for the calls (x-goog-user-project; needed by google-secops)", Destination: &opts.Project},
			&cli.StringFlag{Name: "region", Usage: "the region of the endpoint (google-secops: your instance's, as us or europe-west2)", Destination: &opts.Region},
			&cli.BoolFlag{Name: "force", Usage: "replace an entry of the same name", Destination: &opts.Force},
			&cli.BoolFlag{Name: "list", Usage: "list the presets", Destination: &opts.List},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			args := c.Args().Slice()
			switch {
			case opts.List && len(args) == 0:
			case !opts.List && len(args) == 1:
				opts.Preset = args[0]
			default:
				return cmdutil.UsageErrorf("alertchat mcp add PRESET [--project P] [--region R] [--force], or mcp add --list")
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return addRun(opts)
		},
	}
}

func addRun(o *AddOptions) error {
	if o.List {
		for _, p := range mcp.Presets() {
			entry, err := mcp.PresetEntry(p.Name, "my-project", regionFor(p), o.Getenv)
			endpoint := entry.HTTPURL
			if err != nil {
				endpoint = ""
			}
			fmt.Fprintf(o.IO.Out, "%-16s %s\n%-16s %s\n", p.Name, endpoint, "", p.Description)
		}
		return nil
	}
	entry, err := mcp.PresetEntry(o.Preset, o.Project, o.Region, o.Getenv)
	if errors.Is(err, mcp.ErrUnknownPreset) {
		return cmdutil.UsageErrorf("%s", err.Error())
	}
	if err != nil {
		return cmdutil.UsageErrorf("%s", err.Error())
	}
	path := o.MCPConfig
	if path == "" {
		dir := mcp.ConfigDir(o.Getenv)
		if dir == "" {
			return cmdutil.UsageErrorf("no place for mcp.json: set HOME or XDG_CONFIG_HOME, or give --mcp-config FILE")
		}
		path = filepath.Join(dir, "mcp.json")
	}
	data, mode, err := readConfig(path)
	if err != nil {
		return err
	}
	out, err := mcp.AddServer(data, o.Preset, entry, o.Force)
	if errors.Is(err, mcp.ErrServerExists) {
		o.IO.Notice(fmt.Sprintf("MCP server %s is already in %s; it is kept as it is (use --force to replace it).", o.Preset, path))
		return nil
	}
	if err != nil {
		return cmdutil.UsageErrorf("%s: %s", path, err.Error())
	}
	if err := writeConfig(path, out, mode); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%q: %s\n", o.Preset, mcp.EntryJSON(entry, ""))
	o.IO.Notice(fmt.Sprintf("Added MCP server %s to %s (trust false: its tools ask before they run).", o.Preset, path))
	return nil
}

// regionFor is the region --list shows an endpoint with.
func regionFor(p mcp.Preset) string {
	if p.NeedsRegion {
		return "us"
	}
	return ""
}

// readConfig reads the config at path and its mode; a missing file is empty, to be made 0600.
func readConfig(path string) ([]byte, os.FileMode, error) {
	st, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, goerr.Wrap(err, "failed to read the MCP config", goerr.V("path", path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, goerr.Wrap(err, "failed to read the MCP config", goerr.V("path", path))
	}
	return data, st.Mode().Perm(), nil
}

// writeConfig writes data to path whole or not at all (a file beside it, renamed over it),
// with mode; its directory is made 0700 when missing.
func writeConfig(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return goerr.Wrap(err, "failed to make the MCP config's directory", goerr.V("dir", dir))
	}
	f, err := os.CreateTemp(dir, ".mcp.json-*")
	if err != nil {
		return goerr.Wrap(err, "failed to write the MCP config", goerr.V("path", path))
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(mode); err != nil {
		_ = f.Close()
		return goerr.Wrap(err, "failed to write the MCP config", goerr.V("path", path))
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return goerr.Wrap(err, "failed to write the MCP config", goerr.V("path", path))
	}
	if err := f.Close(); err != nil {
		return goerr.Wrap(err, "failed to write the MCP config", goerr.V("path", path))
	}
	if err := os.Rename(tmp, path); err != nil {
		return goerr.Wrap(err, "failed to write the MCP config", goerr.V("path", path))
	}
	return nil
}
