/**
 * A one-million-step default struct log (memory, stack and storage on; ~300 MB of JSON) is
 * answered in full by the service as `npm start` runs it (child process, the compiled entry
 * point, devnet, WORKERS=2), while its whole process tree stays under 600 MB RSS. The build is
 * what runs in production: under tsx every worker also carries the TypeScript loader and its
 * source maps (about 200 MB more here), which is not the service's memory.
 *
 * The loop contract is put in place with a state override. The body is consumed as a stream
 * (bytes counted, steps counted by their `{"pc":` prefix, head and tail kept): this process never
 * holds the answer either. RSS is sampled from /proc every 50 ms for the service and its
 * descendants, and the service's own high-water mark (VmHWM) is read at the end.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { freePort } from '../support/anvil.js'

const RSS_BOUND_MB = 600
/**
 * Tighter than the 600 MB goal, to catch the answer being held: streamed, the tree peaks at
 * 340–440 MB here; with the read buffers of the whole 300 MB answer held until it closed (a bug
 * once), 574 MB, still under 600.
 */
const NOT_HELD_MB = 500
const TURNS = 100_000
/** 3 set-up steps, then per turn 10 steps, the last JUMPI falls through to STOP */
const STEPS = 3 + 1 + TURNS * 10 + 1
const LOOPER = '0x00000000000000000000000000000000000100ff'
/** PUSH1 0 PUSH1 0x40 MSTORE; PUSH3 n; JUMPDEST; DUP1 PUSH1 0 MSTORE; PUSH1 1 SWAP1 SUB; DUP1 PUSH1 9 JUMPI; STOP */
const CODE = `0x600060405262${TURNS.toString(16).padStart(6, '0')}5b80600052600190038060095700`
const root = new URL('../../', import.meta.url)
const token = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token

/** RSS of a process and all its descendants, MB */
function treeRssMb(pid: number): number {
  let kb = 0
  const visit = (p: number) => {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0)
      for (const task of readdirSync(`/proc/${p}/task`)) {
        for (const child of readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) visit(Number(child))
      }
    } catch {
      // gone meanwhile
    }
  }
  visit(pid)
  return kb / 1024
}

describe('a one-million-step struct log over HTTP', () => {
  let child: ChildProcess | undefined
  afterAll(() => {
    child?.kill('SIGKILL')
  })

  it(`is streamed whole with the service under ${RSS_BOUND_MB} MB RSS`, async () => {
    // `npm start`'s build step: only when a source is newer than dist/, safe to run concurrently
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'ignore' })
    const port = await freePort()
    child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: root,
      env: {
        ...process.env,
        APP_ENV: 'test',
        PORT: String(port),
        WORKERS: '2',
        RPC_URL: '',
        CACHE_URL: 'memory://',
        LOG_LEVEL: 'error',
        REQUEST_TIMEOUT_MS: '240000',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += String(d)))
    const url = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 120_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited: ${stderr}`)
      try {
        if ((await fetch(`${url}/v1/health`)).ok) break
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('service did not start')
      await new Promise((r) => setTimeout(r, 200))
    }

    let peakTree = 0
    const sampler = setInterval(() => (peakTree = Math.max(peakTree, treeRssMb(child!.pid!))), 50)
    try {
      const res = await fetch(`${url}/v1/trace/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          call: { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: LOOPER, data: '0x', gas: '0x2faf080' },
          stateOverrides: { [LOOPER]: { code: CODE } },
          tracerConfig: { structLogger: {} },
        }),
      })
      expect(res.status).toBe(200)
      const declared = Number(res.headers.get('content-length'))
      let bytes = 0
      let steps = 0
      let head = ''
      let tail = ''
      // a step's prefix may straddle two chunks: carry the last few characters over
      let carry = ''
      const decoder = new TextDecoder()
      for await (const chunk of res.body!) {
        bytes += chunk.byteLength
        const fresh = decoder.decode(chunk, { stream: true })
        // counted on the carry too (a prefix cut in two), kept without it (the carry is text seen already)
        const text = carry + fresh
        steps += text.split('{"pc":').length - 1
        carry = text.slice(-5)
        if (head.length < 200) head += fresh.slice(0, 200)
        tail = (tail + fresh).slice(-600)
      }
      expect(bytes).toBe(declared)
      expect(bytes).toBeGreaterThan(250_000_000)
      expect(steps).toBe(STEPS)
      expect(head.startsWith('{"success":true,"data":{"structLogger":{"gas":')).toBe(true)
      expect(head).toContain('"failed":false,"returnValue":"0x","structLogs":[{"pc":0,"op":"PUSH1"')
      // the last step is the STOP, with the three words of memory the loop wrote, and the answer closes
      expect(tail).toMatch(/\{"pc":22,"op":"STOP","gas":\d+,"gasCost":0,"depth":1,"stack":\["0x0"\],"memory":\["0x0{63}1","0x0{64}","0x0{64}"\]\}\]\}\}\}$/)
    } finally {
      clearInterval(sampler)
    }
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024
    console.log(`1M-step struct log: service VmHWM ${hwm.toFixed(0)} MB, process tree peak (sampled) ${peakTree.toFixed(0)} MB`)
    expect(hwm).toBeLessThanOrEqual(RSS_BOUND_MB)
    expect(peakTree).toBeLessThanOrEqual(RSS_BOUND_MB)
    expect(hwm).toBeLessThanOrEqual(NOT_HELD_MB)
  }, 400_000)
})
