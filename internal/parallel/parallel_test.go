package parallel

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

var want = runtime.GOMAXPROCS(0) + 3

func TestMain(m *testing.M) {
	flag.Parse()
	AtLeast(want)
	os.Exit(m.Run())
}

func TestAtLeast(t *testing.T) {
	got := flag.Lookup("test.parallel").Value.String()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given && got != strconv.Itoa(want) {
		t.Skipf("-test.parallel %s given", got)
	}
	if got != strconv.Itoa(want) {
		t.Errorf("-test.parallel = %s; want %d, more than GOMAXPROCS", got, want)
	}
}
