package point

// HugePageBytes is the size of the huge pages that back the registered
// buffers with --use-hugepages: 2 MiB, the x86-64 and arm64 default. A
// point's page_bytes is this with --use-hugepages, else the host's page
// size (4 KiB, or 16 or 64 KiB on some arm64 hosts), always smaller.
const HugePageBytes = 2 << 20
