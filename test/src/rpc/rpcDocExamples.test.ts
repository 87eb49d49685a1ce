/**
 * The examples of docs/json-rpc.md, run as written against the service on the devnet: each
 * ```js block (viem, ethers) as an ES module with node, each `cast` line with Foundry's binary, the endpoint URL replaced by the live one. The output a `// →` or
 * `# →` comment shows must be what the example prints, so the document cannot drift.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { castBinary, requireCast } from '../../support/cast.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'

const root = join(import.meta.dirname, '..', '..', '..')
const section = readFileSync(join(root, 'docs', 'json-rpc.md'), 'utf8')
const DOC_URL = 'http://127.0.0.1:8080/v1/rpc/YOUR_TOKEN'

const jsBlocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!)
const castLines = [...section.matchAll(/^(cast .+)\n# → (.+)$/gm)].map((m) => ({ command: m[1]!, expected: m[2]! }))
const hasCast = requireCast()

let app: RpcApp
beforeAll(async () => {
  app = await startRpcApp()
}, 60_000)
afterAll(async () => app?.close())

const run = (file: string, args: string[], cwd?: string) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    execFile(file, args, { cwd, timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` })
    })
  })

/** a command line split as a POSIX shell would for these examples (single quotes, spaces) */
const words = (line: string) => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!)

describe('the JSON-RPC page’s examples', () => {
  it('has the examples it promises', () => {
    expect(jsBlocks).toHaveLength(2)
    expect(castLines.map((c) => words(c.command)[1])).toEqual(['call', 'estimate', 'access-list', 'run', 'rpc'])
  })

  it.each(jsBlocks.map((code, i) => [i, code] as const))('js example %i prints what its comments show', async (_i, code) => {
    const expected = [...code.matchAll(/^\/\/ → (.+)$/gm)].map((m) => m[1]!)
    expect(code).toContain(DOC_URL)
    const { code: exit, out } = await run(process.execPath, ['--input-type=module', '-e', code.split(DOC_URL).join(app.rpcUrl)], root)
    expect(exit, out).toBe(0)
    expect(out.trim().split('\n')).toEqual(expected)
  })

  it.runIf(hasCast).each(castLines.map((c) => [c.command, c.expected] as const))('%s', async (command, expected) => {
    const args = words(command)
      .slice(1)
      .map((w) => (w === '$R' ? app.rpcUrl : w))
    const { out } = await run(castBinary()!, args)
    expect(out).toContain(expected)
  })
})
