import { startDevnetApp } from './test/endpoints/devnetApp.js'
const app = await startDevnetApp()
const r = await app.request('/trace/tx', { transactionHash: '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b', tracerConfig: { callTree: true } })
console.log(r.status, JSON.stringify(r.json, null, 1))
const s = await app.request('/simulate', { params: { calls: [{ from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', to: '0x5fbdb2315678afecb367f032d93f642f64180aa3', data: '0xa9059cbb000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff' }], traceCalls: true } })
console.log(s.status, JSON.stringify(s.json.error?.details?.result?.calls?.[0]?.callTree ?? s.json, null, 1).slice(0, 2000))
await app.close()
