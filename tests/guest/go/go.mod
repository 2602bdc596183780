module uprobes-arm64/guest

go 1.19
