/**
 * The service's image (Dockerfile), built with podman from Debian on a Node base image built here
 * (test/support/container/nodeBaseImage.ts; once per set of sources, however many files ask) and
 * run as an operator runs it:
 * - README's `docker run` line, run as written (podman for docker, this build's tag for the
 *   image's name, a free port): it answers /v1/health within 10 s of the start, with no setting;
 * - readiness answers, a simulation on the embedded devnet answers;
 * - the process runs as a user other than root, on a read-only root file system: nothing outside
 *   the spill directory can be written;
 * - SIGTERM during a long struct log (spilled to TMPDIR) answers it whole, turns readiness 503 at
 *   once and exits 0;
 * - the image holds no compiler, no test or bench code, no dev dependency, and not this machine's
 *   certificate bundle the build's npm trusted (a build secret); it is reported with its size;
 * - then two containers over one Redis behind a round-robin proxy (twoInstancesSuite.ts), in this
 *   file so that the start above is timed with no other container of these tests starting.
 */
import { existsSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { rootCertificates } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/anvil.js'
import { podman, requirePodman, ulimitArgs } from '../support/container/podman.js'
import { answers, removeServices, runService, SPILL_DIR } from '../support/container/serviceContainer.js'
import { root, serviceImage, TIMES_FILE } from '../support/container/serviceImage.js'
import { twoInstancesSuite } from './twoInstancesSuite.js'

const havePodman = requirePodman()
let image: string

/** a loop of `turns` turns of 10 steps each, put in place by a state override */
const LOOPER = '0x00000000000000000000000000000000000100ff'
const loopCode = (turns: number) => `0x600060405262${turns.toString(16).padStart(6, '0')}5b80600052600190038060095700`
/** 400,000 steps: about 120 MB of struct log JSON, seconds to run, written to the spill directory */
const slowTrace = JSON.stringify({
  call: { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: LOOPER, data: '0x', gas: '0x2faf080' },
  stateOverrides: { [LOOPER]: { code: loopCode(40_000) } },
  tracerConfig: { structLogger: { disableStorage: true } },
})
/** README's demo transfer: 1 DEMO from dev account 0 to account 1 */
const transfer = JSON.stringify({
  params: {
    calls: [
      {
        from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        data: '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000',
      },
    ],
  },
})

/** runs a node script inside the running container, as the image's user */
const inside = (name: string, script: string) => podman(['exec', name, 'node', '-e', script]).trim()

function post(url: string, path: string, body: string): Promise<{ status: number; headers: Record<string, unknown>; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let bytes = 0
      res.on('data', (d: Buffer) => (bytes += d.length))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

beforeAll(async () => {
  if (havePodman) image = await serviceImage()
}, 30 * 60_000)
afterAll(removeServices)

describe.runIf(havePodman)('the service image', () => {
  it("README's docker run starts the devnet with no setting, answering /v1/health within 10 s", async () => {
    const readme = readFileSync(`${root}/README.md`, 'utf8')
    const line = /docker run (.+?)\s*(?:#.*)?$/m.exec(readme)
    expect(line, 'README has a docker run line').not.toBeNull()
    const port = await freePort()
    // as written, but podman's flags, this build's tag and a free host port
    const args = line![1]!.split(/\s+/).map((a) => (a === 'evm-sim-service' ? image : a.replace(/^8080:8080$/, `${port}:8080`)))
    expect(args).toContain(`${port}:8080`)
    const started = Date.now()
    const id = podman(['run', '-d', ...ulimitArgs(), ...args]).trim()
    try {
      await answers(`http://127.0.0.1:${port}`, '/v1/health', 60_000)
      const ms = Date.now() - started
      console.log(`image: /v1/health answered ${ms} ms after podman run`)
      expect(ms).toBeLessThan(10_000)
      const health = (await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json()) as { chainId: number }
      expect(health.chainId).toBe(31337)
    } finally {
      podman(['rm', '-f', '-t', '0', id])
    }
  }, 90_000)

  it('answers readiness and a simulation on the devnet, as a user other than root on a read-only root', async () => {
    const svc = runService(image, await freePort())
    await answers(svc.url, '/v1/health/ready', 30_000)
    const res = await fetch(`${svc.url}/v1/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: transfer })
    const sim = (await res.json()) as { data: { status: string; calls: { logs: { decoded: { summary: string } }[] }[] } }
    expect([res.status, sim.data.status]).toEqual([200, 'success'])
    expect(sim.data.calls[0]!.logs[0]!.decoded.summary).toMatch(/^Transfer 1 DEMO from 0xf39f/)

    const ids = JSON.parse(
      inside(svc.name, 'console.log(JSON.stringify(require("fs").readFileSync("/proc/1/status","utf8").match(/^(Uid|Gid):.*$/gm)))'),
    ) as string[]
    expect(ids.join(' ')).toMatch(/^Uid:\s+10001\s+10001\s+10001\s+10001 Gid:\s+10001/)
    expect(podman(['inspect', '-f', '{{.HostConfig.ReadonlyRootfs}}', svc.name]).trim()).toBe('true')
    const tryWrite = (dir: string) =>
      inside(svc.name, `try { require("fs").writeFileSync("${dir}/probe", "x"); console.log("written") } catch (e) { console.log(e.code) }`)
    expect(tryWrite('/app')).toBe('EROFS')
    expect(tryWrite('/tmp')).toBe('EROFS')
    expect(tryWrite(SPILL_DIR)).toBe('written')
    // the image's HEALTHCHECK (node, no curl in the image) passes on a serving container
    expect(() => podman(['healthcheck', 'run', svc.name])).not.toThrow()
  }, 120_000)

  it('SIGTERM during a long struct log answers it whole, turns readiness 503 at once and exits 0', async () => {
    const svc = runService(image, await freePort())
    await answers(svc.url, '/v1/health/ready', 30_000)
    const slow = post(svc.url, '/v1/trace/call', slowTrace)
    await new Promise((r) => setTimeout(r, 500))
    podman(['kill', '--signal', 'TERM', svc.name])
    const signalled = Date.now()
    let ready: { status: number; body: unknown } | undefined
    for (;;) {
      const res = await fetch(`${svc.url}/v1/health/ready`)
      ready = { status: res.status, body: await res.json() }
      if (ready.status === 503 || Date.now() - signalled > 1000) break
    }
    expect(ready).toEqual({ status: 503, body: { status: 'not-ready', missing: ['draining'] } })
    const answer = await slow
    expect([answer.status, answer.headers.connection]).toEqual([200, 'close'])
    expect(answer.bytes).toBe(Number(answer.headers['content-length']))
    expect(answer.bytes).toBeGreaterThan(1_000_000)
    expect(await svc.exited).toBe(0)
    const draining = svc.logs.find((l) => l.msg === 'draining: finishing the requests in flight')
    expect(draining?.inFlight, 'the struct log was in flight at SIGTERM').toBe(1)
    expect(svc.logs.some((l) => l.msg === 'stopped')).toBe(true)
  }, 120_000)

  it("holds no compiler, test, bench or dev dependency, nor the certificates the build's npm trusted", () => {
    const bundle = process.env.NODE_EXTRA_CA_CERTS ? readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8') : ''
    const publicRoots = new Set(rootCertificates.map((c) => c.replace(/\s+/g, '')))
    // this machine's own certificates: those of the bundle that are not Node's public roots
    const own = (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).filter((c) => !publicRoots.has(c.replace(/\s+/g, '')))
    const needles = own.map((c) => c.split('\n')[3]!).filter((l) => l.length >= 60)
    const scan = `
      const fs = require('fs'), path = require('path'), found = []
      const needles = JSON.parse(process.env.NEEDLES)
      const bad = /^(gcc|g\\+\\+|cc|c\\+\\+|clang|make|ld|as|python3?)$/
      const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name)
        if (['/proc', '/sys', '/dev'].includes(p)) continue
        if (e.isDirectory()) { walk(p); continue }
        if (!e.isFile()) continue
        if (/\\/s?bin\\//.test(p) && bad.test(e.name)) found.push('compiler ' + p)
        if (/^\\/app\\/(?!node_modules\\/)/.test(p) && (/\\.test\\.ts$/.test(p) || /^\\/app\\/(test|bench|scripts)\\//.test(p))) found.push('test code ' + p)
        if (/^\\/app\\/node_modules\\/(vitest|typescript|tsx|@biomejs|playwright-core|solc|@foundry-rs)\\//.test(p)) found.push('dev dependency ' + p)
        if (needles.length && fs.statSync(p).size < 64 * 2 ** 20) { const t = fs.readFileSync(p, 'latin1'); for (const n of needles) if (t.includes(n)) found.push('certificate in ' + p) }
      } }
      walk('/')
      console.log(JSON.stringify({ found: [...new Set(found.map((f) => f.replace(/\\/[^/]+$/, '/…')))], secrets: fs.existsSync('/run/secrets') ? fs.readdirSync('/run/secrets') : [] }))`
    const out = podman(
      // as root, to read every file
      [
        'run',
        '--rm',
        '--network',
        'none',
        '--user',
        '0',
        ...ulimitArgs(),
        '-e',
        `NEEDLES=${JSON.stringify(needles)}`,
        '--entrypoint',
        'node',
        image,
        '-e',
        scan,
      ],
      { timeoutMs: 300_000 },
    )
    expect(JSON.parse(out)).toEqual({ found: [], secrets: [] })
    const config = podman(['image', 'inspect', '-f', '{{json .Config.Env}} {{json .Config.User}} {{json .Config.Entrypoint}}', image])
    expect(config).not.toMatch(/NODE_EXTRA_CA_CERTS|npm_ca/)
    expect(config).toContain('"10001:10001"')
    expect(config).toContain('["node","dist/src/main.js"]')
    // the ethereumjs patches are applied in the image
    expect(
      podman([
        'run',
        '--rm',
        '--network',
        'none',
        ...ulimitArgs(),
        '--entrypoint',
        'grep',
        image,
        '-c',
        'evm-sim-service patch',
        '/app/node_modules/@ethereumjs/vm/dist/esm/runTx.js',
      ]).trim(),
    ).not.toBe('0')
    const size = Number(podman(['image', 'inspect', '-f', '{{.Size}}', image]).trim())
    const times = existsSync(TIMES_FILE) ? readFileSync(TIMES_FILE, 'utf8') : '(built before this run)'
    console.log(`image: ${(size / 1e6).toFixed(0)} MB; build times ${times}`)
    expect(size).toBeLessThan(450e6)
  }, 360_000)
})

describe.runIf(havePodman)('the service image, twice', () => twoInstancesSuite(() => image))
