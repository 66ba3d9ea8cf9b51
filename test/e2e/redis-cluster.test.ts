/**
 * The store on a 3-master Redis Cluster this test starts on loopback ports: the store contract,
 * change fan-out, and two server processes serving one session through REDIS_CLUSTER_NODES.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRedisStore } from '../../src/store/redis/index.js'
import { fanOutSuite } from '../redis-fanout.js'
import {
  missingRedis,
  probeRedisBinaries,
  startRedisCluster,
  uniquePrefix,
} from '../redis-support.js'
import { storeContract } from '../store-contract.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const missing = probeRedisBinaries()

if (missing) {
  missingRedis('Redis Cluster', missing)
} else {
  const cluster = await startRedisCluster()
  after(() => cluster.stop())
  const prefix = uniquePrefix('cluster')
  const open = (options: Parameters<typeof createRedisStore>[0]) =>
    createRedisStore({ ...options, clusterNodes: cluster.nodes, keyPrefix: prefix })

  storeContract('redis-cluster', open)
  fanOutSuite('redis-cluster', open)

  describe('Two server processes on the cluster', () => {
    let a: ServerProcess
    let b: ServerProcess
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()])
    })

    it('Should count 60 concurrent rounds split across both and spread keys over the masters', async () => {
      const env = {
        STORE: 'redis',
        REDIS_CLUSTER_NODES: cluster.nodes.join(','),
        REDIS_KEY_PREFIX: prefix,
      }
      ;[a, b] = await Promise.all([startServer(env), startServer(env)])
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          request((i % 2 ? a : b).url, 'POST', '/v1/sessions/cluster-hot/rounds', {
            tool_calls: [{ id: `toolu_${i}`, name: 'bash' }],
          })
        )
      )
      assert.deepEqual(
        replies.filter((reply) => reply.status !== 200).map((reply) => reply.text),
        []
      )
      const view = await request(a.url, 'GET', '/v1/sessions/cluster-hot')
      assert.equal(view.body.round, 60)
      assert.equal(view.body.version, 60)
      const list = await request(b.url, 'GET', '/v1/sessions')
      assert.deepEqual(
        list.body.sessions.map((s: { session_id: string }) => s.session_id),
        ['cluster-hot']
      )
      const keysPerNode = cluster.nodes.map((node) => {
        const [, port] = node.split(':')
        return Number(
          spawnSync('redis-cli', ['-p', port, 'dbsize'], { encoding: 'utf8' }).stdout.trim()
        )
      })
      assert.ok(
        keysPerNode.filter((count) => count > 0).length >= 2,
        `keys on more than one master: ${keysPerNode.join(', ')}`
      )
    })
  })
}
