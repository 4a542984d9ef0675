import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { OnDomainEvent } from '../common/domain-events';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../metrics/metrics.service';
import { RATING_CHANGED_EVENT } from '../ratings/rating-change';
import { AttemptResult, WebhookSender } from './webhook-sender';
import { ClaimedWork, OutboxMessage, WebhookClaimsRepository } from './webhook-claims.repository';
import { FinishedAttempt, WebhookRecordingRepository } from './webhook-recording.repository';

/** At most this many attempts run at once for one webhook, over all instances (contract §15). */
export const MAX_ATTEMPTS_IN_FLIGHT = 8;
/** How often the outbox is read: writes of other processes (the CLI) are found within this. */
const POLL_MS = 1000;
/**
 * How soon a local write is looked for: the writes of this long are claimed together, far inside
 * the 5 s of contract §15 for a first attempt.
 */
const WRITE_WAKE_MS = 50;
/**
 * A claim outlives the longest attempt by this much; then another instance may take it. With the
 * poll, it bounds MAX_WEBHOOK_TIMEOUT_SECONDS (contract §15: a dead claimer's events within 30 s).
 */
const LEASE_MARGIN_MS = 10_000;
/** Attempts recorded in one transaction at most. */
const RECORD_BATCH = 100;
/**
 * How long an ended attempt may wait for others to be recorded with it, while other attempts are
 * still sending and fewer than half of the room have ended: the delivery log lags by this much at
 * most, plus a recording under way.
 */
const RECORD_WAIT_MS = 50;

/**
 * The delivery worker of one server instance. It claims due outbox messages (a lease, see
 * WebhookClaimsRepository.claim), sends them off the request path and records each attempt
 * (WebhookRecordingRepository): delivered, retried after the next delay of WEBHOOK_RETRY_SECONDS,
 * or failed after the last. It wakes every second and shortly after local writes; on shutdown it
 * stops claiming, cuts running attempts short and gives their messages back.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly owner = randomUUID();
  private readonly stop = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
  private ticking: Promise<void> | null = null;
  /** When the next tick comes after the running one: sooner if something woke it meanwhile. */
  private delayAfterTick = POLL_MS;
  /** Attempts whose request is under way: those that ended are in `unrecorded` or recorded. */
  private sending = 0;
  private readonly unrecorded: {
    finished: FinishedAttempt;
    endedAt: number;
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  private recording: Promise<void> | null = null;
  private recordTimer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly claims: WebhookClaimsRepository,
    private readonly recorder: WebhookRecordingRepository,
    private readonly sender: WebhookSender,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    this.wake(0);
  }

  /**
   * A local write may have queued messages: look shortly rather than at the next poll, once for
   * all the writes of that moment. While attempts run, each one that ends looks again (and the
   * poll runs every second), so a burst of writes does not also start a claim per write.
   */
  @OnDomainEvent(RATING_CHANGED_EVENT)
  onRatingChanged(): void {
    if (this.running.size === 0) this.wake(WRITE_WAKE_MS);
  }

  async onModuleDestroy(): Promise<void> {
    this.stop.abort();
    if (this.timer) clearTimeout(this.timer);
    this.recordNow();
    await this.ticking;
    // A recording that began before the stop may have claimed messages: they start, stop at once
    // and are given back, before the connections close.
    while (this.running.size > 0 || this.recording) {
      await Promise.allSettled([...this.running, this.recording]);
    }
    this.sender.close();
  }

  /** Ticks within `delay` ms: after the running tick ends, or at the earliest timer set. */
  private wake(delay: number): void {
    if (this.stop.signal.aborted) return;
    if (this.ticking) {
      this.delayAfterTick = Math.min(this.delayAfterTick, delay);
      return;
    }
    const at = Date.now() + delay;
    if (this.timer) {
      if (this.timerAt <= at) return;
      clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = setTimeout(() => this.runTick(), delay);
  }

  private runTick(): void {
    this.timer = null;
    if (this.stop.signal.aborted) return;
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      const delay = this.delayAfterTick;
      this.delayAfterTick = POLL_MS;
      this.wake(delay);
    });
  }

  private async tick(): Promise<void> {
    try {
      for (const webhookId of await this.claims.dueWebhookIds(Date.now())) {
        if (this.stop.signal.aborted) return;
        // The time of each claim: the claims of a tick over many webhooks may take a while.
        const now = Date.now();
        const work = await this.claims.claim(
          webhookId,
          now,
          MAX_ATTEMPTS_IN_FLIGHT,
          this.owner,
          this.leaseEnd(now),
        );
        for (const message of work?.messages ?? []) this.start(work!.webhook, message);
      }
    } catch (error) {
      this.logger.warn(`Reading the webhook outbox failed: ${(error as Error).message}`);
    }
  }

  /**
   * Attempts are recorded together (a group commit): one write transaction for a batch of
   * attempts, not one each, so that deliveries take the database from API writes as little as
   * they can. An ended attempt is recorded at once when no other attempt is sending or half the
   * room has ended, and otherwise once it has waited RECORD_WAIT_MS; those that end while a
   * recording runs go in the next one. Once half the room is free and the batch is of one webhook,
   * that transaction also claims the webhook's next messages, instead of a claim of its own
   * (otherwise the attempts' end wakes a tick, which claims). An attempt delivered but not yet
   * recorded when the process dies is sent again once its lease runs out (at least once,
   * contract §15).
   */
  private record(finished: FinishedAttempt): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unrecorded.push({ finished, endedAt: Date.now(), resolve, reject });
      this.scheduleRecording();
    });
  }

  private scheduleRecording(): void {
    if (this.recording || this.unrecorded.length === 0) return;
    const waited = Date.now() - this.unrecorded[0].endedAt;
    if (
      this.sending === 0 ||
      this.unrecorded.length >= MAX_ATTEMPTS_IN_FLIGHT / 2 ||
      waited >= RECORD_WAIT_MS ||
      this.stop.signal.aborted
    ) {
      this.recordNow();
    } else {
      this.recordTimer ??= setTimeout(() => this.recordNow(), RECORD_WAIT_MS - waited);
    }
  }

  private recordNow(): void {
    if (this.recordTimer) {
      clearTimeout(this.recordTimer);
      this.recordTimer = null;
    }
    if (this.recording || this.unrecorded.length === 0) return;
    this.recording = this.recordBatch().finally(() => {
      this.recording = null;
      // Attempts that ended while this one ran.
      this.scheduleRecording();
    });
  }

  private async recordBatch(): Promise<void> {
    // Let the attempts that end in this turn of the event loop join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    const batch = this.unrecorded.splice(0, RECORD_BATCH);
    const now = Date.now();
    try {
      const claimed = await this.recorder.recordAttempts(
        batch.map((pending) => pending.finished),
        this.owner,
        now,
        this.stop.signal.aborted || this.sending > MAX_ATTEMPTS_IN_FLIGHT / 2
          ? null
          : { max: MAX_ATTEMPTS_IN_FLIGHT, leaseUntil: this.leaseEnd(now) },
      );
      for (const work of claimed) {
        for (const message of work.messages) this.start(work.webhook, message);
      }
      for (const pending of batch) pending.resolve();
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }

  private leaseEnd(now: number): number {
    return now + this.sender.attemptTimeoutMs + LEASE_MARGIN_MS;
  }

  private start(webhook: ClaimedWork['webhook'], message: OutboxMessage): void {
    const attempt = this.attempt(webhook, message)
      .catch((error: unknown) =>
        this.logger.warn(
          `Recording a webhook attempt of ${message.eventId} failed: ${(error as Error).message}`,
        ),
      )
      .finally(() => {
        this.running.delete(attempt);
        // Claims again once half the room is free: one claim for several messages of a burst,
        // not one for each attempt that ends.
        if (this.running.size <= MAX_ATTEMPTS_IN_FLIGHT / 2) this.wake(0);
      });
    this.running.add(attempt);
  }

  private async attempt(webhook: ClaimedWork['webhook'], message: OutboxMessage): Promise<void> {
    const attemptedAt = Date.now();
    this.sending++;
    let result: AttemptResult;
    try {
      result = await this.sender.send(webhook, message.eventId, message.body, this.stop.signal);
    } finally {
      this.sending--;
    }
    if (result.stopped) {
      await this.claims.release(message, this.owner);
      return;
    }
    const now = Date.now();
    const delays = this.config.webhooks.retrySeconds;
    const outcome = result.delivered
      ? 'delivered'
      : message.attempts < delays.length
        ? 'retrying'
        : 'failed';
    // The k-th retry comes the k-th delay after this failure (message.attempts = k - 1).
    const nextAttemptAt = outcome === 'retrying' ? now + delays[message.attempts] * 1000 : null;
    await this.record({
      webhookId: webhook.id,
      message,
      attempt: {
        eventId: message.eventId,
        eventType: message.eventType,
        attemptedAt,
        status: result.status,
        error: result.error,
        outcome,
      },
      nextAttemptAt,
    });
    this.metrics.countWebhookDelivery(outcome);
  }
}
