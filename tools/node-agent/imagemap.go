package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
)

// imageConfig is what a container image would contribute: its entrypoint,
// command, working directory, environment and user, and which host
// directories make up its files (container path -> host path).
type imageConfig struct {
	Pattern    string            `json:"pattern"`
	Entrypoint []string          `json:"entrypoint,omitempty"`
	Cmd        []string          `json:"cmd,omitempty"`
	WorkingDir string            `json:"workingDir,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	User       *int64            `json:"user,omitempty"`
	Group      *int64            `json:"group,omitempty"`
	Files      map[string]string `json:"files,omitempty"`
}

type imageMap struct {
	Images []imageConfig `json:"images"`
}

func loadImageMap(file string) (*imageMap, error) {
	m := &imageMap{}
	if file == "" {
		return m, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("image map: %w", err)
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("image map %s: %w", file, err)
	}
	return m, nil
}

// normalize adds the default tag and strips docker.io's implicit prefixes so
// that "qdrant/qdrant:v1.14.1" and "docker.io/qdrant/qdrant:v1.14.1" match alike.
func normalizeImage(ref string) string {
	ref = strings.TrimPrefix(ref, "docker.io/")
	ref = strings.TrimPrefix(ref, "library/")
	if at := strings.Index(ref, "@"); at >= 0 {
		return ref
	}
	last := ref[strings.LastIndex(ref, "/")+1:]
	if !strings.Contains(last, ":") {
		ref += ":latest"
	}
	return ref
}

// lookup returns the first entry whose pattern (a path.Match glob) matches the image.
func (m *imageMap) lookup(image string) (*imageConfig, bool) {
	ref := normalizeImage(image)
	for i := range m.Images {
		if ok, _ := path.Match(m.Images[i].Pattern, ref); ok {
			return &m.Images[i], true
		}
	}
	return nil, false
}
