package main

import (
	"os"
	"strings"
)

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func splitNonEmpty(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
