package install_test

import (
	"fmt"

	"github.com/egohost/egohost/install"
	"github.com/egohost/egohost/internal/link/chromeext"
)

func Example() {
	id, err := chromeext.ID("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxQyXh4zHk3XN43PkJddKX3RcmgBRbyhuItgaDSQ6pjK1tnq4pcqY6nefwArX9SbhAzv+IKfTWLAFs2UyloozcQAyvRIrrRyV2pLKwHdybuJPXDjEcBVwIH3TXLxThM2FHgUb/Gnj4MTKCC94R/XQlEfETAUMxScJyBAmfoI0alSASny1x4BlfSX4k2Ym1VP5en1w/DyfjF8XwsT9vU6edO5SwphHItBdbVBZpA+sFbQxpGBIee/v25ggydtuP1UEjeH+7Rjb7nFMeaHnAkuSBbDdLkdPgBy1nuWYxz920AAIjoujCa0xRrFKGcdxN7h9C/3Ma+6DIc0uAXON7+w3AwIDAQAB")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := install.NewHostManifest("com.egohost.host", "/usr/local/bin/egohost", []string{id})
	fmt.Println(m.AllowedOrigins[0])

	locs, _ := install.BrowserLocations(install.Chromium, "linux", "/home/ada")
	for _, l := range locs {
		fmt.Printf("%-18s %s\n", l, l.Dir)
	}
	win, _ := install.BrowserLocations(install.Edge, "windows", `C:\Users\ada`)
	fmt.Printf("%-18s %s\n%18s %s\n", win[0], win[0].Dir, "", win[0].RegistryKey+`\`+m.Name)
	// Then: install.WriteManifest(l.Dir, m) for each location in
	// install.Present(locs, exists), and on Windows
	// install.SetRegistryValue(key, the manifest's path).

	// Output:
	// chrome-extension://aokapgkciafkaelljglcdibalbfomkdb/
	// chromium           /home/ada/.config/chromium/NativeMessagingHosts
	// chromium (snap)    /home/ada/snap/chromium/common/chromium/NativeMessagingHosts
	// chromium (flatpak) /home/ada/.var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts
	// edge               C:\Users\ada\AppData\Local\egohost\NativeMessagingHosts
	//                    HKCU\Software\Microsoft\Edge\NativeMessagingHosts\com.egohost.host
}
