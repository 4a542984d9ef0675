import { Socket, connect as connectSocket } from 'node:net';
import { Logger } from '@nestjs/common';
import { createConnection, type Connection } from 'mysql2';
import type { DataSourceOptions } from 'typeorm';
import type { GaleraTarget, HostPort } from '../config/cluster-urls';

/** Every node is asked for its state this often. */
const PROBE_EVERY_MS = 1000;
/** A probe (connect and query) gives up after this long: a hung node is not ready. */
const PROBE_TIMEOUT_MS = 1500;
/**
 * A node that was not ready is used again only after this many ready probes in a row: a node
 * resumed after a stop still says "synced" for a moment before it notices it was evicted.
 */
const READY_PROBES_TO_RETURN = 3;

/** The error a connection gets while no node of the list is ready. */
export const NO_READY_NODE_CODE = 'DATABASE_NO_READY_NODE';

interface NodeState {
  node: HostPort;
  name: string;
  /** Consecutive ready probes; 0 after a probe that found it not ready. */
  readyStreak: number;
  /** Why it is not ready, as the last probe saw it. */
  reason: string;
  /** `wsrep_cluster_conf_id` of the view the node is in, as the last ready probe saw it. */
  view: number;
  /** It has been used since it last was not ready (no streak needed to stay on it). */
  trusted: boolean;
  probing: boolean;
}

const selectors = new WeakMap<object, GaleraNodes>();

/**
 * The nodes of a multi-host DATABASE_URL (contract §23): every connection of the pool is opened
 * to the current node, the first of the list that is ready (`wsrep_ready` ON, `wsrep_local_state`
 * 4 = Synced, in the Primary component). Each node is probed every second on a short connection
 * of its own; when the current node fails, hangs or stops being ready the next ready one becomes
 * current, and connections to the old one are dropped when next taken from the pool.
 * Hand-written: mysql2's PoolCluster picks a node per connection and removes a node only after
 * connection errors, not on `wsrep_ready`, and TypeORM's `replication` option is primary/replica.
 */
export class GaleraNodes {
  private readonly logger = new Logger('Database');
  private readonly states: NodeState[];
  private currentState: NodeState | null = null;
  private timer: NodeJS.Timeout | null = null;
  private firstRound: Promise<void> | null = null;
  private lastLogged = '';

  constructor(private readonly target: GaleraTarget) {
    this.states = target.nodes.map((node) => ({
      node,
      name: `${node.host.includes(':') ? `[${node.host}]` : node.host}:${node.port}`,
      readyStreak: 0,
      reason: 'not probed yet',
      view: 0,
      trusted: false,
      probing: false,
    }));
  }

  get current(): HostPort | null {
    return this.currentState?.node ?? null;
  }

  describe(): string {
    return this.states.map((state) => state.name).join(',') + `/${this.target.database}`;
  }

  /** Starts probing (once); resolves after the first round of probes. */
  start(): Promise<void> {
    if (!this.firstRound) {
      this.firstRound = this.probeAll();
      this.timer = setInterval(() => void this.probeAll(), PROBE_EVERY_MS).unref();
    }
    return this.firstRound;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.firstRound = null;
  }

  /** Waits for a first round of probes; throws naming every node's state when none is ready. */
  async requireReadyNode(): Promise<void> {
    await this.start();
    if (this.currentState) return;
    await this.probeAll();
    if (this.currentState) return;
    throw new Error(
      `No Galera node is ready (${this.states.map((state) => `${state.name}: ${state.reason}`).join('; ')})`,
    );
  }

  /** mysql2's `stream` option: each new connection goes to the current node. */
  openSocket = (): Socket => {
    void this.start();
    const node = this.current;
    if (!node) {
      const socket = new Socket();
      process.nextTick(() =>
        socket.destroy(
          Object.assign(new Error('No Galera node of DATABASE_URL is ready'), {
            code: NO_READY_NODE_CODE,
          }),
        ),
      );
      return socket;
    }
    const socket = connectSocket(node.port, node.host);
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    (socket as Socket & { galeraNode?: HostPort }).galeraNode = node;
    return socket;
  };

  /** A pooled connection still leads to the current node (when one is ready). */
  isCurrent(connection: { stream?: unknown }): boolean {
    const node = (connection.stream as { galeraNode?: HostPort } | undefined)?.galeraNode;
    return node === undefined || this.current === null || node === this.current;
  }

  private async probeAll(): Promise<void> {
    await Promise.all(this.states.map((state) => this.probe(state)));
    this.choose();
  }

  private async probe(state: NodeState): Promise<void> {
    if (state.probing) return;
    state.probing = true;
    try {
      const { reason, view } = await probeNode(this.target, state.node);
      if (reason === null) {
        state.readyStreak++;
        state.view = view;
      } else {
        state.readyStreak = 0;
        state.trusted = false;
        state.reason = reason;
      }
    } finally {
      state.probing = false;
    }
  }

  private choose(): void {
    // A node resumed after a stop still reports the view it was in, Synced and Primary, until it
    // notices (seconds later) that the others moved on without it: only the latest view counts.
    const latest = Math.max(0, ...this.states.filter((s) => s.readyStreak > 0).map((s) => s.view));
    for (const state of this.states) {
      if (state.readyStreak > 0 && state.view < latest) {
        state.readyStreak = 0;
        state.trusted = false;
        state.reason = `behind the cluster (in view ${state.view}, the others in ${latest})`;
      }
    }
    const first = !this.states.some((state) => state.trusted);
    const next =
      this.states.find(
        (state) =>
          state.readyStreak > 0 &&
          (state.trusted || first || state.readyStreak >= READY_PROBES_TO_RETURN),
      ) ?? null;
    if (next) next.trusted = true;
    if (next === this.currentState) return;
    const previous = this.currentState;
    this.currentState = next;
    const why = !previous
      ? ''
      : previous.readyStreak > 0
        ? ` (it comes before ${previous.name} in DATABASE_URL and is ready again)`
        : ` (${previous.name}: ${previous.reason})`;
    const line = next
      ? `Working through Galera node ${next.name}${why}`
      : `No Galera node is ready: requests that need the database are answered 503 (${this.states
          .map((state) => `${state.name}: ${state.reason}`)
          .join('; ')})`;
    if (line === this.lastLogged) return;
    this.lastLogged = line;
    if (next) this.logger.log(line);
    else this.logger.error(line);
  }
}

const STATE_SQL = `SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state',
  'wsrep_local_state_comment', 'wsrep_cluster_status', 'wsrep_cluster_conf_id')`;

/** `reason` null when the node is ready (`view`: its cluster view's id), else why not. */
function probeNode(
  target: GaleraTarget,
  node: HostPort,
): Promise<{ reason: string | null; view: number }> {
  return new Promise((resolve) => {
    let connection: Connection | null = null;
    let settled = false;
    let view = 0;
    const finish = (reason: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (reason === null) connection?.end(() => undefined);
      else connection?.destroy();
      resolve({ reason, view });
    };
    const timer = setTimeout(
      () => finish(`no answer within ${PROBE_TIMEOUT_MS} ms`),
      PROBE_TIMEOUT_MS,
    );
    connection = createConnection({
      host: node.host,
      port: node.port,
      user: target.user,
      password: target.password,
      connectTimeout: PROBE_TIMEOUT_MS,
    });
    connection.on('error', (error: Error & { code?: string }) =>
      finish(error.code ?? error.message),
    );
    connection.query(STATE_SQL, (error, rows) => {
      if (error) return finish((error as Error & { code?: string }).code ?? error.message);
      const status = Object.fromEntries(
        (rows as { Variable_name: string; Value: string }[]).map((row) => [
          row.Variable_name,
          row.Value,
        ]),
      );
      if (status.wsrep_ready === undefined) return finish('not a Galera node (no wsrep_ready)');
      if (status.wsrep_cluster_status !== 'Primary') {
        return finish(`not in the Primary component (${status.wsrep_cluster_status})`);
      }
      if (status.wsrep_ready !== 'ON' || status.wsrep_local_state !== '4') {
        return finish(
          `not synced (${status.wsrep_local_state_comment ?? status.wsrep_local_state})`,
        );
      }
      view = Number(status.wsrep_cluster_conf_id);
      finish(null);
    });
  });
}

/** The selector behind TypeORM options made for a multi-host URL; undefined for one host. */
export function galeraNodesOf(options: DataSourceOptions): GaleraNodes | undefined {
  const stream = (options as { extra?: { stream?: unknown } }).extra?.stream;
  return typeof stream === 'function' ? selectors.get(stream) : undefined;
}

/** The selector of a Galera target, made once per target object. */
export function galeraNodesFor(target: GaleraTarget): GaleraNodes {
  let nodes = selectors.get(target);
  if (!nodes) {
    nodes = new GaleraNodes(target);
    selectors.set(target, nodes);
    selectors.set(nodes.openSocket, nodes);
  }
  return nodes;
}

/**
 * Session settings of every connection to a Galera node: causal reads (a SELECT waits until the
 * node has applied every write committed anywhere before it began), and an autocommit statement
 * that loses a certification conflict is run again by the server.
 */
export const GALERA_SESSION_SQL = 'SET SESSION wsrep_sync_wait = 1, wsrep_retry_autocommit = 10';
