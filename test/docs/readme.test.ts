/**
 * The README stays a page one reads through: at most 250 lines. The details live in docs/.
 * Its set-up commands say what the project does: `npm start` serves on the host and port of the
 * development settings, and the image (`docker build`, `docker run`) listens on the port the
 * Dockerfile exposes, under the name the command builds. test/deploy/image.test.ts runs the
 * `docker run` line itself; test/src/startTogether.test.ts runs `npm start`.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const MAX_LINES = 250
const text = readFileSync(join(root, 'README.md'), 'utf8')
const setup = /## Set-up\n\n```sh\n([\s\S]+?)```/.exec(text)![1]!

describe('README.md', () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
    expect(lines).toBeGreaterThan(50)
    expect(lines).toBeLessThanOrEqual(MAX_LINES)
  })

  it("the set-up's npm start serves where the development settings and package.json say", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.start).toMatch(/node dist\/src\/main\.js$/)
    const config = loadConfig({ env: { APP_ENV: 'development' } })
    expect(setup).toContain(`npm ci && npm start     # builds, then serves the embedded devnet on http://${config.server.host}:${config.server.port}`)
  })

  it("the set-up's docker run runs the image docker build makes, on the port the Dockerfile exposes", () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8')
    const build = /docker build -t (\S+) \./.exec(setup)
    const run = /docker run (.+)$/m.exec(setup)
    expect(build, 'a docker build line').not.toBeNull()
    expect(run, 'a docker run line').not.toBeNull()
    const args = run![1]!.trim().split(/\s+/)
    expect(args.at(-1)).toBe(build![1])
    const port = /^EXPOSE (\d+)$/m.exec(dockerfile)![1]
    expect(args).toContain(`${port}:${port}`)
    expect(dockerfile).toMatch(new RegExp(`^ENV .*\\bPORT=${port}\\b`, 'm'))
    // the read-only root the README shows needs the spill directory writable: /tmp, TMPDIR's
    expect(args).toEqual(expect.arrayContaining(['--read-only', '--tmpfs', '/tmp']))
    expect(dockerfile).toMatch(/^ENV .*\bTMPDIR=\/tmp\b/m)
  })
})
