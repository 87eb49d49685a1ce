/**
 * Every REST endpoint of the devnet called through the typed client (evm-sim/client): the
 * bodies and answers below are checked by the compiler against the generated types (npm test's
 * typecheck), and each answer here against what the devnet holds.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createSimClient, type SimClient } from '../../client/index.js'
import { loadConfig } from '../../config/loadConfig.js'
import { startDevnetApp, type DevnetApp } from '../src/support/devnetApp.js'

const A0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const A1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const DEMO = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const DEMO_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
/** transfer(A1, 1e18) */
const TRANSFER = '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000'
const call = { from: A0, to: DEMO, data: TRANSFER }

let app: DevnetApp
let sim: SimClient
beforeAll(async () => {
  app = await startDevnetApp()
  sim = createSimClient({ baseUrl: app.url, token: loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token })
}, 60_000)
afterAll(() => app?.close())

it('answers health, simulations and stored simulations', async () => {
  expect((await sim.GET('/v1/health')).response.status).toBe(200)
  expect((await sim.GET('/v1/health/live')).response.status).toBe(200)
  expect((await sim.GET('/v1/health/ready')).response.status).toBe(200)
  // /v1/simulate answers a simulation (`data`) or, with `stepTrace`, its steps (`result`)
  const simulated = (await sim.POST('/v1/simulate', { body: { params: { calls: [call] } } })).data
  if (!simulated || !('data' in simulated)) throw new Error('no simulation answered')
  expect(simulated.data.status).toBe('success')
  const stored = await sim.GET('/v1/simulations/{simulationId}', { params: { path: { simulationId: simulated.data.simulationId } } })
  expect(stored.data?.data.simulationId).toBe(simulated.data.simulationId)
  const batch = await sim.POST('/v1/simulate/batch', { body: [{ params: { calls: [call] } }, { params: { calls: [call] } }] })
  expect(batch.response.status).toBe(200)
  const list = await sim.POST('/v1/simulate/access-list', { body: { params: call } })
  expect(list.data?.data.accessList[0]?.address).toBe(DEMO)
  const signature = await sim.POST('/v1/simulate/signature', {
    body: {
      signer: A0,
      typedData: {
        primaryType: 'Permit',
        domain: { name: 'Demo', version: '1', chainId: 31337, verifyingContract: DEMO },
        types: {
          Permit: [
            { name: 'owner', type: 'address' },
            { name: 'spender', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'nonce', type: 'uint256' },
            { name: 'deadline', type: 'uint256' },
          ],
        },
        message: { owner: A0, spender: A1, value: '1', nonce: '0', deadline: '1893456000' },
      },
    },
  })
  expect(signature.data?.data.kind).toBe('erc2612')
}, 60_000)

it('answers traces and JSON-RPC', async () => {
  const tx = await sim.POST('/v1/trace/tx', { body: { transactionHash: DEMO_TX, tracerConfig: { callTracer: {} } } })
  expect((tx.data!.data.callTracer as { to: string }).to).toBe(DEMO)
  const traced = await sim.POST('/v1/trace/call', { body: { call, tracerConfig: { callTracer: {} } } })
  expect(traced.response.status).toBe(200)
  const many = await sim.POST('/v1/trace/call-many', { body: { bundles: [{ transactions: [call, call] }], tracerConfig: { callTracer: {} } } })
  expect(many.data?.data[0]).toHaveLength(2)
  const rpc = await sim.POST('/v1/rpc', { body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } })
  expect(rpc.data).toMatchObject({ result: '0x7a69' })
}, 60_000)

it('answers every fork route', async () => {
  const created = await sim.POST('/v1/forks', { body: { label: 'typed client' } })
  const forkId = created.data!.data.forkId
  const path = { forkId }
  expect((await sim.GET('/v1/forks')).data?.data.some((f) => f.forkId === forkId)).toBe(true)
  expect((await sim.GET('/v1/forks/{forkId}', { params: { path } })).data?.data.forkId).toBe(forkId)
  const sent = await sim.POST('/v1/forks/{forkId}/rpc', {
    params: { path },
    body: { jsonrpc: '2.0', id: 1, method: 'eth_sendTransaction', params: [call] },
  })
  const hash = (sent.data as { result: `0x${string}` }).result
  expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
  const simulated = (await sim.POST('/v1/forks/{forkId}/simulate', { params: { path }, body: { params: { calls: [call] } } })).data
  expect(simulated && 'data' in simulated && simulated.data.status).toBe('success')
  expect((await sim.POST('/v1/forks/{forkId}/simulate/access-list', { params: { path }, body: { params: call } })).response.status).toBe(200)
  expect((await sim.POST('/v1/forks/{forkId}/simulate/batch', { params: { path }, body: [{ params: { calls: [call] } }] })).response.status).toBe(200)
  expect((await sim.POST('/v1/forks/{forkId}/trace/call', { params: { path }, body: { call, tracerConfig: { callTracer: {} } } })).response.status).toBe(200)
  const many = await sim.POST('/v1/forks/{forkId}/trace/call-many', { params: { path }, body: { bundles: [{ transactions: [call] }] } })
  expect(many.response.status).toBe(200)
  const tx = await sim.POST('/v1/forks/{forkId}/trace/tx', { params: { path }, body: { transactionHash: hash, tracerConfig: { callTracer: {} } } })
  expect((tx.data!.data.callTracer as { from: string }).from).toBe(A0)
  expect((await sim.DELETE('/v1/forks/{forkId}', { params: { path } })).data?.data.deleted).toBe(true)
}, 60_000)
