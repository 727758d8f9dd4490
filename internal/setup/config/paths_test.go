package config

import "testing"

func TestDefaultDirs(t *testing.T) {
	none := env(nil)
	for _, tc := range []struct {
		name         string
		goos, home   string
		getenv       func(string) string
		state, out   string
		stateOK, oOK bool
	}{
		{"linux home", "linux", "/home/a", none, "/home/a/.cache/egohost/run", "/home/a/.cache/egohost/output", true, true},
		{"linux xdg", "linux", "/home/a", env(map[string]string{"XDG_RUNTIME_DIR": "/run/user/1", "XDG_CACHE_HOME": "/c"}), "/run/user/1/egohost", "/c/egohost/output", true, true},
		{"linux relative xdg", "linux", "/home/a", env(map[string]string{"XDG_RUNTIME_DIR": "run", "XDG_CACHE_HOME": "c"}), "/home/a/.cache/egohost/run", "/home/a/.cache/egohost/output", true, true},
		{"linux xdg no home", "linux", "", env(map[string]string{"XDG_RUNTIME_DIR": "/run/user/1"}), "/run/user/1/egohost", "", true, false},
		{"linux no home", "linux", "", none, "", "", false, false},
		{"darwin", "darwin", "/Users/a", env(map[string]string{"XDG_RUNTIME_DIR": "/r", "XDG_CACHE_HOME": "/c", "LOCALAPPDATA": "/l"}), "/Users/a/Library/Application Support/egohost", "/Users/a/Library/Caches/egohost/output", true, true},
		{"darwin no home", "darwin", "", none, "", "", false, false},
		{"windows localappdata", "windows", `C:\Users\a`, env(map[string]string{"LOCALAPPDATA": `D:\L`}), `D:\L\egohost`, `D:\L\egohost-output`, true, true},
		{"windows home", "windows", `C:\Users\a`, none, `C:\Users\a\AppData\Local\egohost`, `C:\Users\a\AppData\Local\egohost-output`, true, true},
		{"windows relative localappdata", "windows", "", env(map[string]string{"LOCALAPPDATA": `L`}), "", "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := DefaultStateDir(tc.goos, tc.home, tc.getenv); got != tc.state || ok != tc.stateOK {
				t.Errorf("DefaultStateDir = %q, %v; want %q, %v", got, ok, tc.state, tc.stateOK)
			}
			if got, ok := DefaultOutputDir(tc.goos, tc.home, tc.getenv); got != tc.out || ok != tc.oOK {
				t.Errorf("DefaultOutputDir = %q, %v; want %q, %v", got, ok, tc.out, tc.oOK)
			}
		})
	}
}
