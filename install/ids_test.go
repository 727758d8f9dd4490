package install

const testID = "aokapgkciafkaelljglcdibalbfomkdb"
