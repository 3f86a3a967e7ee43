module github.com/iggygo/iggy/scripts/natsbench

go 1.26.8

require (
	github.com/iggygo/iggy v0.0.0
	github.com/nats-io/nats.go v1.55.0
)

require (
	github.com/klauspost/compress v1.20.0 // indirect
	github.com/nats-io/nkeys v0.4.16 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

// The measurements come from iggy-bench's package stats in this repository.
replace github.com/iggygo/iggy => ../..
