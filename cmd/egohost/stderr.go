package main

import (
	"bufio"
	"io"
	"strings"
)

// filterStderr drops Chromium's harmless noise (dbus, GPU, Vulkan) from
// what it writes to w, so that what remains is worth reading. nil stays nil.
func filterStderr(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if noise(line) {
				continue
			}
			io.WriteString(w, line+"\n")
		}
		pr.Close()
	}()
	return pw
}

func noise(line string) bool {
	if strings.TrimSpace(line) == "" {
		return true
	}
	for _, n := range []string{"dbus", "Failed to connect to the bus", "vulkan", "Vulkan", "dawn", "Dawn", "gpu", "GPU", "DevTools listening", "Fontconfig", "sandbox", "ALSA"} {
		if strings.Contains(line, n) {
			return true
		}
	}
	return false
}
