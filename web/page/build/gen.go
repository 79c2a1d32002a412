// Command build bundles Discord's Embedded App SDK for the live board page:
// ../assets/sdk.js (minified, the global tttDiscord) and
// ../THIRD_PARTY_LICENSES.txt (the SDK's license and those of the libraries
// it carries inside it). It is its own module so that esbuild stays out of
// the bot's go.mod; the SDK's version is pinned by package-lock.json and
// installed by `npm ci` before this runs (see the go:generate line in
// ../page.go). The output is committed: the bot needs no Node at run time.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

const (
	sdkDir = "node_modules/@discord/embedded-app-sdk"
	libDir = sdkDir + "/output/lib/"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

func run() error {
	// The licenses go first: they end the bundle as a comment, so every
	// copy of it, served or embedded, carries them.
	licenses, err := licensesOf()
	if err != nil {
		return err
	}
	footer := "/*!\n" + strings.ReplaceAll(string(licenses), "*/", "* /") + "*/"
	res := api.Build(api.BuildOptions{
		Footer:            map[string]string{"js": footer},
		EntryPoints:       []string{"sdk-entry.js"},
		Bundle:            true,
		Format:            api.FormatIIFE,
		GlobalName:        "tttDiscord",
		Platform:          api.PlatformBrowser,
		Target:            api.ES2019,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		TreeShaking:       api.TreeShakingTrue,
		LegalComments:     api.LegalCommentsNone, // they are all in THIRD_PARTY_LICENSES.txt
		Charset:           api.CharsetUTF8,
		Metafile:          true,
		Write:             false,
		Outfile:           "sdk.js",
		LogLevel:          api.LogLevelWarning,
	})
	if len(res.Errors) > 0 {
		return fmt.Errorf("esbuild: %v", res.Errors[0].Text)
	}
	if len(res.OutputFiles) != 1 {
		return fmt.Errorf("esbuild wrote %d files, want 1", len(res.OutputFiles))
	}
	if err := os.WriteFile("../assets/sdk.js", res.OutputFiles[0].Contents, 0o644); err != nil {
		return err
	}
	if err := checkLibs(res.Metafile); err != nil {
		return err
	}
	return os.WriteFile("../THIRD_PARTY_LICENSES.txt", licenses, 0o644)
}

// libs are the libraries the SDK ships inside itself (output/lib/<name>).
func libs() ([]string, error) {
	entries, err := os.ReadDir(libDir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// checkLibs makes sure every input of the bundle is the SDK's own code or
// one of its libs, whose licenses licensesOf collected.
func checkLibs(metafile string) error {
	var meta struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &meta); err != nil {
		return err
	}
	for in := range meta.Inputs {
		if in != "sdk-entry.js" && !strings.HasPrefix(in, sdkDir+"/output/") {
			return fmt.Errorf("the bundle has %s, from outside the SDK: add its license", in)
		}
	}
	return nil
}

// licensesOf collects the license of the SDK and of each library it ships
// inside itself.
func licensesOf() ([]byte, error) {
	names, err := libs()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("The live board's page bundles Discord's Embedded App SDK (assets/sdk.js).\n")
	b.WriteString("These are the licenses of the SDK and of the libraries it carries inside it.\n")
	sdk, err := readPackage(sdkDir)
	if err != nil {
		return nil, err
	}
	section(&b, "@discord/embedded-app-sdk "+sdk.version, sdk.license)
	for _, name := range names {
		text, title, err := libLicense(name)
		if err != nil {
			return nil, err
		}
		section(&b, title, text)
	}
	return b.Bytes(), nil
}

type pkg struct{ version, license string }

// readPackage reads an installed npm package's version and license file.
func readPackage(dir string) (pkg, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return pkg{}, err
	}
	var p struct{ Version string }
	if err := json.Unmarshal(raw, &p); err != nil {
		return pkg{}, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "LICEN[SC]E*"))
	if len(files) == 0 {
		return pkg{}, fmt.Errorf("%s: no license file", dir)
	}
	text, err := os.ReadFile(files[0])
	if err != nil {
		return pkg{}, err
	}
	return pkg{p.Version, string(text)}, nil
}

// tslibHeader is the license comment tslib's helpers carry at their top.
var tslibHeader = regexp.MustCompile(`(?s)^/\*+\s*(.*?)\s*\*+ \*/`)

// libLicense is the license of a library the SDK ships under output/lib:
// the same package installed beside it (npm installs the SDK's
// dependencies), or, for tslib's helpers, which are not a dependency, the
// license comment at the top of the helpers' file.
func libLicense(name string) (text, title string, err error) {
	if name == "tslib" {
		src, err := os.ReadFile(libDir + "tslib/tslib.es6.mjs")
		if err != nil {
			return "", "", err
		}
		m := tslibHeader.FindSubmatch(src)
		if m == nil {
			return "", "", fmt.Errorf("tslib: no license comment")
		}
		return string(m[1]) + "\n", "tslib (helpers, 0BSD)", nil
	}
	p, err := readPackage(filepath.Join("node_modules", name))
	if err != nil {
		return "", "", fmt.Errorf("library %s in the bundle: %w", name, err)
	}
	return p.license, name + " " + p.version, nil
}

func section(b *bytes.Buffer, title, text string) {
	fmt.Fprintf(b, "\n%s\n%s\n\n%s", strings.Repeat("=", 72), title, text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
}
