/**
 * The GitHub Actions job of the README ("Forks for CI"), minus the CI wrapper: its "Create a
 * fork" step runs as written (curl, against the service started here, its URL put in
 * $GITHUB_ENV), then a tool is pointed at the fork's RPC URL as the job's test step does.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cast, requireCast } from '../../support/cast.js'
import { startForkApp, type ForkApp } from './forkApp.js'

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')
const doc = readme.slice(readme.indexOf('## Forks for CI'))

/** the `run:` script of the step named `name` in the page's YAML job */
function stepScript(name: string): string {
  const yaml = doc.slice(doc.indexOf('```yaml'), doc.indexOf('```', doc.indexOf('```yaml') + 7))
  const at = yaml.indexOf(`- name: ${name}`)
  const run = yaml.indexOf('run: |', at)
  const lines = yaml.slice(run).split('\n').slice(1)
  const body: string[] = []
  for (const line of lines) {
    if (!line.startsWith('          ')) break
    body.push(line.slice(10))
  }
  return body.join('\n')
}

describe('the CI job of the README', () => {
  const hasCast = requireCast()
  let app: ForkApp
  beforeAll(async () => {
    // the job's service runs without a token, as `npm start` in development does
    app = await startForkApp({ env: { AUTH_TOKEN: '' } })
  })
  afterAll(async () => app?.close())

  it.runIf(hasCast)(
    'creates a fork with curl and points a tool at its RPC URL',
    async () => {
      const script = stepScript('Create a fork')
        .split('http://127.0.0.1:8080')
        .join(app.url)
        .split('$' + '{{ github.run_id }}')
        .join('42')
      expect(script).toContain('curl')
      const env = join(mkdtempSync(join(tmpdir(), 'forkci-')), 'env')
      await new Promise<void>((resolve, reject) =>
        execFile('bash', ['-eo', 'pipefail', '-c', script], { env: { ...process.env, GITHUB_ENV: env } }, (err, _out, stderr) =>
          err ? reject(new Error(stderr || err.message)) : resolve(),
        ),
      )
      const url = /^FORK_RPC_URL=(.+)$/m.exec(readFileSync(env, 'utf8'))![1]!
      expect(url).toMatch(new RegExp(`^${app.url}/v1/forks/fork_[0-9a-f-]{36}/rpc$`))
      const forkId = url.split('/').at(-2)!
      expect((await app.request('GET', `/v1/forks/${forkId}`)).json.data.label).toBe('ci-42')
      // the test step: a tool on the fork
      const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
      const sent = JSON.parse(
        await cast(['send', '--private-key', key, '--json', '--rpc-url', url, '0x000000000000000000000000000000000000bEEF', '--value', '1']),
      )
      expect(sent.status).toBe('0x1')
      expect(await cast(['block-number', '--rpc-url', url])).toBe(String(BigInt(sent.blockNumber)))
    },
    60_000,
  )
})
