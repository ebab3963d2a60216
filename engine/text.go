package engine

// Version is the writer version recorded as cli_version; set at build time with -ldflags.
var Version = "dev"
