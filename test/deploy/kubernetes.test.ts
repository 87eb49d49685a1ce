/**
 * deploy/kubernetes/ against Kubernetes' own schemas (npm `kubernetes-models`: each kind's
 * OpenAPI schema, validated), and what the schemas cannot see: the probes on the health routes,
 * a termination grace longer than the preStop pause and the drain's grace together, memory that
 * fits the budget the ConfigMap sets, non-root on a read-only root with the spill directory an
 * emptyDir big enough for the struct logs it allows, the token from a Secret, Redis by URL.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Deployment } from 'kubernetes-models/apps/v1'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { ConfigMap, Service } from 'kubernetes-models/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { envOverrides } from '../../config/envOverrides.js'

const dir = fileURLToPath(new URL('../../deploy/kubernetes', import.meta.url))
const read = (file: string) => parse(readFileSync(join(dir, file), 'utf8'))
const MODELS = { Deployment, Service, HorizontalPodAutoscaler, PodDisruptionBudget, ConfigMap } as const
/** the code and VMs of one process with two engine threads, MiB (docs/operations.md "Memory budget") */
const CODE_AND_VMS_MB = 300
const mib = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? Number(/^(\d+)Gi$/.exec(q)![1]) * 1024)

const deployment = new Deployment(read('deployment.yaml'))
const config = read('configmap.yaml').data as Record<string, string>
const pod = deployment.spec!.template.spec!
const container = pod.containers[0]!

describe('deploy/kubernetes', () => {
  it("every manifest is valid under its kind's Kubernetes schema, and the kustomization lists them all", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    expect(read('kustomization.yaml').resources.sort()).toEqual(files.sort())
    for (const file of files) {
      const doc = read(file) as { kind: keyof typeof MODELS }
      const Model = MODELS[doc.kind]
      expect(Model, `${file}: ${doc.kind}`).toBeDefined()
      expect(() => new Model(doc as never).validate(), file).not.toThrow()
    }
  })

  it('the schemas refuse a wrong manifest (the check can fail)', () => {
    const broken = read('deployment.yaml')
    broken.spec.template.spec.containers[0].readinessProbe.httpGet.port = { name: 'http' }
    expect(() => new Deployment(broken).validate()).toThrow()
    expect(() => new Service({ ...read('service.yaml'), spec: { ports: 80 } }).validate()).toThrow()
  })

  it('probes the health routes and drains within the termination grace', () => {
    expect(container.readinessProbe!.httpGet!.path).toBe('/v1/health/ready')
    expect(container.livenessProbe!.httpGet!.path).toBe('/v1/health/live')
    expect(container.startupProbe!.httpGet!.path).toBe('/v1/health/live')
    const pause = /setTimeout\(\(\) => \{\}, (\d+)\)/.exec(container.lifecycle!.preStop!.exec!.command!.join(' '))
    const grace = Number(config.SHUTDOWN_GRACE_MS)
    expect(Number(pause![1]) + grace).toBeLessThan(pod.terminationGracePeriodSeconds! * 1000)
    // the grace outlasts the longest request, so a drain cuts nothing
    expect(Number(config.REQUEST_TIMEOUT_MS)).toBeLessThan(grace)
  })

  it('asks the memory its budget needs, runs non-root on a read-only root, spills to an emptyDir', () => {
    const request = mib(container.resources!.requests!.memory as string)
    expect(config.WORKERS).toBe('2')
    expect(request).toBeGreaterThanOrEqual(CODE_AND_VMS_MB + Number(config.CACHE_MAX_MEMORY_MB) + 256)
    expect(mib(container.resources!.limits!.memory as string)).toBeGreaterThanOrEqual(request)
    expect(pod.securityContext!.runAsNonRoot).toBe(true)
    expect(container.securityContext!.readOnlyRootFilesystem).toBe(true)
    const mount = container.volumeMounts!.find((m) => m.mountPath === config.TMPDIR)!
    const volume = pod.volumes!.find((v) => v.name === mount.name)!
    expect(mib(volume.emptyDir!.sizeLimit as string)).toBeGreaterThanOrEqual(2 * Number(config.MAX_STRUCT_LOG_MB))
  })

  it('takes the token and the Redis URL from a Secret, everything else from the ConfigMap, by names the service reads', () => {
    const known = new Set(['APP_ENV', 'NODE_OPTIONS', 'TMPDIR', ...envOverrides.map((o) => o.name)])
    for (const name of Object.keys(config)) expect(known, name).toContain(name)
    expect(config.AUTH_TOKEN).toBeUndefined()
    const fromSecret = container.env!.map((e) => [e.name, e.valueFrom?.secretKeyRef?.name])
    expect(fromSecret).toEqual([
      ['AUTH_TOKEN', 'evm-sim'],
      ['CACHE_URL', 'evm-sim'],
    ])
    expect(container.envFrom).toEqual([{ configMapRef: { name: 'evm-sim' } }])
    expect(new HorizontalPodAutoscaler(read('hpa.yaml')).spec!.metrics![0]!.resource!.name).toBe('cpu')
  })
})
