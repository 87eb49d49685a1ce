// 8 connections for D ms of /simulate transfers with varying amounts; prints req/s
import { encodeFunctionData, parseAbi } from 'viem'
const [url, d = '5000'] = process.argv.slice(2)
const abi = parseAbi(['function transfer(address,uint256) returns (bool)'])
const from = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', token = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const body = (i) => JSON.stringify({ params: { calls: [{ from, to: token, data: encodeFunctionData({ abi, functionName: 'transfer', args: [from, BigInt(i + 1)] }) }], blockTag: 'latest' } })
async function run(ms) { let n = 0; const end = performance.now() + ms; const t = performance.now()
  await Promise.all(Array.from({ length: Number(process.env.CONN ?? 8) }, async (_, c) => { for (let i = c; performance.now() < end; i += Number(process.env.CONN ?? 8)) { const r = await fetch(`${url}/v1/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) }); const j = await r.json(); if (!j.success) throw new Error(JSON.stringify(j).slice(0, 200)); n++ } }))
  return n / ((performance.now() - t) / 1000) }
await run(2000)
console.log('req/s', (await run(Number(d))).toFixed(0))
