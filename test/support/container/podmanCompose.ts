/**
 * A Compose file run as an operator runs it, with podman-compose from Debian (podman 4.3 has no
 * `podman compose`; later podmans hand that command to this same program). What this machine
 * needs of podman (runc, the cgroupfs manager, ulimits under the host's hard limits: podman.ts)
 * goes in a containers.conf of the test's own (`CONTAINERS_CONF`), never in the Compose file.
 * Missing podman-compose: a loud warning, a failure under CI.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { podman, ulimitArgs } from './podman.js'

export function requirePodmanCompose(): boolean {
  if (spawnSync('podman-compose', ['version'], { stdio: 'ignore' }).status === 0) return true
  const msg = 'PODMAN-COMPOSE MISSING: the Compose test needs podman-compose from Debian: .ci/run installs it'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
  return false
}

/** podman's settings for this machine, as a containers.conf in `dir`; its path */
export function writeContainersConf(dir: string): string {
  const ulimits = ulimitArgs().filter((a) => a !== '--ulimit')
  const path = join(dir, 'containers.conf')
  writeFileSync(
    path,
    ['[containers]', `default_ulimits = ${JSON.stringify(ulimits)}`, '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', ''].join('\n'),
  )
  return path
}

export interface ComposeContainer {
  name: string
  state: string
}

export interface ComposeProject {
  /** runs `podman-compose -p <project> -f <file> …args`; its output and podman's */
  compose(args: string[], timeoutMs?: number): string
  /** the project's containers by service */
  containers(): Map<string, ComposeContainer>
  /** the project's volumes and networks, by name */
  leftovers(): { volumes: string[]; networks: string[] }
  /** removes whatever of the project is left, by podman itself */
  removeAll(): void
}

const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '')

export function composeProject(file: string, project: string, env: Record<string, string>): ComposeProject {
  const label = `label=io.podman.compose.project=${project}`
  const containers = () => {
    const list = JSON.parse(podman(['ps', '-a', '--filter', label, '--format', 'json'])) as {
      Names: string[]
      State: string
      Labels: Record<string, string>
    }[]
    return new Map(list.map((c) => [c.Labels['com.docker.compose.service']!, { name: c.Names[0]!, state: c.State }]))
  }
  const leftovers = () => ({
    volumes: lines(podman(['volume', 'ls', '--filter', label, '--format', '{{.Name}}'])),
    networks: lines(podman(['network', 'ls', '--filter', label, '--format', '{{.Name}}'])),
  })
  return {
    compose: (args, timeoutMs = 300_000) => {
      const ran = spawnSync('podman-compose', ['-p', project, '-f', file, ...args], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
        timeout: timeoutMs,
        maxBuffer: 64 * 2 ** 20,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      // podman's own complaints (a container that did not start) are on stderr, beside its commands
      const output = `${ran.stdout}${ran.stderr}`
      if (ran.status !== 0) throw new Error(`podman-compose ${args.join(' ')} exited ${ran.status ?? ran.signal}:\n${output.slice(-4000)}`)
      return output
    },
    containers,
    leftovers,
    removeAll: () => {
      const names = [...containers().values()].map((c) => c.name)
      if (names.length > 0) podman(['rm', '-f', '-t', '0', ...names])
      const { volumes, networks } = leftovers()
      if (volumes.length > 0) podman(['volume', 'rm', '-f', ...volumes])
      if (networks.length > 0) podman(['network', 'rm', '-f', ...networks])
    },
  }
}
