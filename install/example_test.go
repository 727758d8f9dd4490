package install_test

import (
	"fmt"

	"github.com/egohost/egohost/chromeext"
	"github.com/egohost/egohost/install"
)

func Example() {
	id, err := chromeext.ID("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxQyXh4zHk3XN43PkJddKX3RcmgBRbyhuItgaDSQ6pjK1tnq4pcqY6nefwArX9SbhAzv+IKfTWLAFs2UyloozcQAyvRIrrRyV2pLKwHdybuJPXDjEcBVwIH3TXLxThM2FHgUb/Gnj4MTKCC94R/XQlEfETAUMxScJyBAmfoI0alSASny1x4BlfSX4k2Ym1VP5en1w/DyfjF8XwsT9vU6edO5SwphHItBdbVBZpA+sFbQxpGBIee/v25ggydtuP1UEjeH+7Rjb7nFMeaHnAkuSBbDdLkdPgBy1nuWYxz920AAIjoujCa0xRrFKGcdxN7h9C/3Ma+6DIc0uAXON7+w3AwIDAQAB")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := install.NewHostManifest("com.egohost.host", "/usr/local/bin/egohost", []string{id})
	fmt.Println(m.AllowedOrigins[0])

	for _, b := range install.Browsers() {
		dir, _ := install.UserManifestDir(b, "linux", "/home/ada")
		key, _ := install.RegistryKey(b, m.Name)
		fmt.Printf("%-8s %s\n         %s\n", b, dir, key)
	}
	// Then: install.WriteManifest(dir, m) for each browser present.

	// Output:
	// chrome-extension://aokapgkciafkaelljglcdibalbfomkdb/
	// chrome   /home/ada/.config/google-chrome/NativeMessagingHosts
	//          HKCU\Software\Google\Chrome\NativeMessagingHosts\com.egohost.host
	// chromium /home/ada/.config/chromium/NativeMessagingHosts
	//          HKCU\Software\Chromium\NativeMessagingHosts\com.egohost.host
	// edge     /home/ada/.config/microsoft-edge/NativeMessagingHosts
	//          HKCU\Software\Microsoft\Edge\NativeMessagingHosts\com.egohost.host
	// brave    /home/ada/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts
	//          HKCU\Software\Google\Chrome\NativeMessagingHosts\com.egohost.host
}
