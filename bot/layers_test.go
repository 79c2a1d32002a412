package bot

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestFilesDoNotLoop checks that the files of package bot refer to each
// other without a loop: each file uses names (types, functions, methods,
// fields, constants) of files below it only, so that the package reads
// from the ground up and a change to a low file never has to know a
// higher one. With -v it prints the floors, the ground first.
func TestFilesDoNotLoop(t *testing.T) {
	refs, err := fileReferences(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, loop := range loops(refs) {
		var why []string
		for _, a := range loop {
			for _, b := range loop {
				if names := refs[a][b]; len(names) > 0 {
					why = append(why, a+" → "+b+" ("+strings.Join(names, ", ")+")")
				}
			}
		}
		t.Errorf("these files refer to each other in a loop:\n\t%s", strings.Join(why, "\n\t"))
	}
	if testing.Verbose() {
		for i, floor := range floors(refs) {
			t.Logf("floor %d: %s", i+1, strings.Join(floor, " "))
		}
	}
}

// loops finds a loop of three files and leaves the file that only points
// into it, and floors places only the files outside loops.
func TestLoopsFindsALoop(t *testing.T) {
	refs := map[string]map[string][]string{
		"a.go": {"b.go": {"x"}}, "b.go": {"c.go": {"y"}}, "c.go": {"a.go": {"z"}},
		"d.go": {"a.go": {"x"}}, "e.go": {},
	}
	if got := loops(refs); len(got) != 1 || strings.Join(got[0], " ") != "a.go b.go c.go" {
		t.Errorf("loops = %v; want [[a.go b.go c.go]]", got)
	}
	if got := floors(refs); len(got) != 1 || strings.Join(got[0], " ") != "e.go" {
		t.Errorf("floors = %v; want [[e.go]]: d.go stands on a loop", got)
	}
}

// fileReferences type-checks the package in dir, without its tests, and
// returns for each file the files whose package-level names, methods and
// fields it uses, with those names.
func fileReferences(dir string) (map[string]map[string][]string, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	// The packages bot imports are read from the compiler's export data,
	// which go list names, built as this test was so that it is already
	// in the build cache.
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}
	if raceBuild {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	export := make(map[string]string)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "=")
		export[path] = file
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := export[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	info := &types.Info{Uses: make(map[*ast.Ident]types.Object)}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check("bot", fset, files, info)
	if err != nil {
		return nil, err
	}
	refs := make(map[string]map[string][]string)
	for _, f := range files {
		refs[filepath.Base(fset.File(f.Pos()).Name())] = make(map[string][]string)
	}
	seen := make(map[[3]string]bool)
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || (obj.Parent() != nil && obj.Parent() != pkg.Scope()) {
			continue // another package's, or local to a function
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to || seen[[3]string{from, to, obj.Name()}] {
			continue
		}
		seen[[3]string{from, to, obj.Name()}] = true
		refs[from][to] = append(refs[from][to], obj.Name())
	}
	for _, tos := range refs {
		for _, names := range tos {
			sort.Strings(names)
		}
	}
	return refs, nil
}

// loops returns the groups of two or more files that reach each other
// (Tarjan's strongly connected components), each sorted.
func loops(refs map[string]map[string][]string) [][]string {
	var (
		index   = make(map[string]int)
		low     = make(map[string]int)
		onStack = make(map[string]bool)
		stack   []string
		out     [][]string
		visit   func(string)
	)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range sortedKeys(refs[v]) {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var group []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			group = append(group, w)
			if w == v {
				break
			}
		}
		if len(group) > 1 {
			sort.Strings(group)
			out = append(out, group)
		}
	}
	for _, v := range sortedKeys(refs) {
		if _, ok := index[v]; !ok {
			visit(v)
		}
	}
	return out
}

// floors puts each file one floor above the highest file it uses; files
// in a loop are left out.
func floors(refs map[string]map[string][]string) [][]string {
	floor := make(map[string]int)
	var place func(string, map[string]bool) int
	place = func(v string, path map[string]bool) int {
		if f, ok := floor[v]; ok {
			return f
		}
		if path[v] {
			return -1
		}
		path[v] = true
		defer delete(path, v)
		f := 0
		for w := range refs[v] {
			g := place(w, path)
			if g < 0 {
				return -1
			}
			f = max(f, g+1)
		}
		floor[v] = f
		return f
	}
	var out [][]string
	for _, v := range sortedKeys(refs) {
		f := place(v, make(map[string]bool))
		if f < 0 {
			continue
		}
		for len(out) <= f {
			out = append(out, nil)
		}
		out[f] = append(out[f], v)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
