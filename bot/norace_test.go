//go:build !race

package bot

const raceBuild = false
