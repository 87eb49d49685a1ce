// Preloaded into a child service by the memory soak test (node --expose-gc --import <this>): once
// a second, a full GC and then one line on stderr with RSS and the live memory (heap in use plus
// external buffers), so the test sees what the process holds, not V8's garbage.
setInterval(() => {
  globalThis.gc?.()
  const m = process.memoryUsage()
  process.stderr.write(`MEMPROBE ${Date.now()} ${m.rss} ${m.heapUsed + m.external}\n`)
}, 1000).unref()
