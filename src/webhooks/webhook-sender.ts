import * as http from 'node:http';
import * as https from 'node:https';
import { Inject, Injectable } from '@nestjs/common';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { assertGlobalHost, guardedLookup } from './address-policy';

/** What one attempt came to. `stopped`: cut short by shutdown, to be made again, not recorded. */
export interface AttemptResult {
  delivered: boolean;
  status: number | null;
  error: string | null;
  stopped: boolean;
}

const USER_AGENT = 'anime-manga-ratings-webhooks/1';
/** Signers kept at most (one per webhook secret). */
const MAX_SIGNERS = 1000;

/**
 * Makes one delivery attempt (contract §15): a POST signed as Standard Webhooks v1 (signed again
 * for each attempt, with the attempt's time), no redirects followed (node:http follows none), no
 * complete response within the timeout: aborted. Unless WEBHOOK_ALLOW_PRIVATE=true, the host is
 * checked before the attempt and the agents' `lookup` checks the address the socket connects to.
 */
@Injectable()
export class WebhookSender {
  private readonly agents: { 'http:': http.Agent; 'https:': https.Agent };
  private readonly timeoutMs: number;
  private readonly allowPrivate: boolean;
  private readonly signers = new Map<string, StandardWebhook>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.allowPrivate = config.webhooks.allowPrivate;
    this.timeoutMs = config.webhooks.timeoutSeconds * 1000;
    const options = {
      keepAlive: true,
      ...(this.allowPrivate
        ? {}
        : { lookup: guardedLookup as unknown as http.AgentOptions['lookup'] }),
    };
    this.agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
  }

  /** The signer of a secret, made once: it decodes the secret's key when made. */
  private signerFor(secret: string): StandardWebhook {
    let signer = this.signers.get(secret);
    if (!signer) {
      if (this.signers.size >= MAX_SIGNERS) this.signers.clear();
      this.signers.set(secret, (signer = new StandardWebhook(secret)));
    }
    return signer;
  }

  get attemptTimeoutMs(): number {
    return this.timeoutMs;
  }

  async send(
    target: { url: string; secret: string },
    eventId: string,
    body: string,
    stop: AbortSignal,
  ): Promise<AttemptResult> {
    const url = new URL(target.url);
    if (!this.allowPrivate) {
      try {
        await assertGlobalHost(url);
      } catch (error) {
        return failure(null, (error as Error).message);
      }
    }
    const now = new Date();
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': USER_AGENT,
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': this.signerFor(target.secret).sign(eventId, now, body),
    };
    const transport = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.agents['https:'] : this.agents['http:'];

    // One timer and one listener per attempt: AbortSignal.timeout + AbortSignal.any cost several
    // times more per attempt, and each attempt of a burst of writes pays it.
    return new Promise<AttemptResult>((resolve) => {
      let status: number | null = null;
      let ended = false;
      const end = (result: AttemptResult) => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        stop.removeEventListener('abort', onStop);
        resolve(result);
      };
      const request = transport.request(url, { method: 'POST', headers, agent }, (response) => {
        status = response.statusCode ?? null;
        // The body is read to its end (that is a complete response) and dropped.
        response.on('data', () => undefined);
        response.on('error', (error) => end(failure(status, error.message || String(error))));
        response.on('end', () => {
          const delivered = status !== null && status >= 200 && status < 300;
          end({
            delivered,
            status,
            error: delivered ? null : describeStatus(status),
            stopped: false,
          });
        });
      });
      const timer = setTimeout(() => {
        end(failure(status, `no complete response within ${this.timeoutMs / 1000} s`));
        request.destroy();
      }, this.timeoutMs);
      const onStop = () => {
        end({ delivered: false, status, error: null, stopped: true });
        request.destroy();
      };
      if (stop.aborted) return onStop();
      stop.addEventListener('abort', onStop, { once: true });
      request.on('error', (error) => end(failure(status, error.message || String(error))));
      request.end(body);
    });
  }

  /** Closes the kept-alive connections (shutdown). */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

function failure(status: number | null, error: string): AttemptResult {
  return { delivered: false, status, error, stopped: false };
}

function describeStatus(status: number | null): string | null {
  if (status !== null && status >= 300 && status < 400) return 'redirect not followed';
  return null;
}
