import { Inject, Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { insufficientScope } from '../auth/scopes.guard';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TitleCrossRefsStore } from '../catalog/title-cross-refs';
import { ProblemException, PROBLEMS } from '../common/problem';
import { CounterStore } from '../counters/counter-store';
import { MetricsService } from '../metrics/metrics.service';
import type { RatingWriter } from '../ratings/rating-writer';
import type { PutRatingDto } from '../ratings/dto/entry-classes';
import { RatingsService, type TitleWithEntryRow } from '../ratings/ratings.service';
import { isMissingParent } from '../database/errors';
import { SettingsService } from '../settings/settings.service';
import {
  ID_ORDER,
  SCROBBLE_PARSERS,
  type ParsedScrobble,
  type ScrobbleParser,
  type ScrobblerKind,
} from './parsers';
import { bodyFormatOf, payloadOf, type BodyFormat } from './scrobble-body';
import {
  dayIn,
  SCROBBLE_FIELDS,
  scrobbleEffect,
  type ScrobbledMediaType,
} from './scrobble-effects';
import { mappingKey, secretHash } from './scrobble-keys';
import { mappingView, ScrobbleLedger } from './scrobble-ledger';
import type { ScrobbleMapping } from './scrobble-mapping.entity';
import type { Scrobbler } from './scrobbler.entity';
import { ScrobblersService } from './scrobblers.service';
import type {
  PutScrobbleMappingDto,
  ScrobbleMappingView,
  UnmatchedScrobbleView,
} from './scrobblers.dto';

export type ScrobbleOutcome =
  'created' | 'updated' | 'unchanged' | 'ignored' | 'duplicate' | 'unmatched' | 'not_watched';

/** The receiver's answer: `episodes_watched`, or `chapters_read` for manga payloads. */
export type ScrobbleAnswer = { outcome: ScrobbleOutcome; title_id: number | null } & Record<
  string,
  number | string | null
>;

/** A request past the checks made before its body is read: whose it is and how to read it. */
export interface ScrobbleAdmission {
  readonly scrobbler: Scrobbler;
  readonly parser: ScrobbleParser;
  readonly format: BodyFormat;
  readonly contentType: string;
}

/** The window of the per-secret limit (contract §21: 120 per 60 s, SCROBBLE_RATE_LIMIT). */
const SCROBBLE_WINDOW_MS = 60_000;

interface Match {
  titleId: number;
  /** The mapping's offset (0 for rules 1 and 3). */
  offset: number;
}

/** The scrobble receiver and the mappings (contract §21). */
@Injectable()
export class ScrobblingService {
  constructor(
    private readonly scrobblers: ScrobblersService,
    private readonly ledger: ScrobbleLedger,
    private readonly titles: TitleCrossRefsStore,
    private readonly ratings: RatingsService,
    private readonly settings: SettingsService,
    private readonly counters: CounterStore,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The checks of POST /scrobble/{secret} that come before its body is read (contract §21): 404,
   * 429, 415. `setHeaders` receives the `RateLimit-*` headers of the secret's window (section 5's),
   * for every answer past the 404.
   */
  async admit(
    secret: string,
    contentType: string | undefined,
    setHeaders: (headers: Record<string, string>) => void,
  ): Promise<ScrobbleAdmission> {
    const scrobbler = await this.scrobblers.findBySecret(secret);
    if (!scrobbler) throw unknownSecret();
    const limit = this.config.scrobbleRateLimit;
    const window = await this.counters.hit(`scrobble:${secretHash(secret)}`, SCROBBLE_WINDOW_MS);
    const reset = Math.max(1, Math.ceil(window.resetMs / 1000));
    const headers = {
      'RateLimit-Limit': String(limit),
      'RateLimit-Remaining': String(Math.max(0, limit - window.count)),
      'RateLimit-Reset': String(reset),
    };
    setHeaders(headers);
    if (window.count > limit) {
      const retryAfter = reset;
      throw ProblemException.of(
        429,
        PROBLEMS.rateLimited,
        `At most ${limit} requests per minute reach one scrobbler; retry in ${retryAfter} s`,
        { ...headers, 'retry-after': String(retryAfter) },
      );
    }
    const parser = SCROBBLE_PARSERS[scrobbler.kind as ScrobblerKind];
    const format = bodyFormatOf(contentType, parser);
    return { scrobbler, parser, format, contentType: contentType ?? '' };
  }

  /** The rest of POST /scrobble/{secret}, once admitted: 400, or the outcome. */
  async receive(admission: ScrobbleAdmission, body: unknown): Promise<ScrobbleAnswer> {
    const { scrobbler, parser, format, contentType } = admission;
    const parsed = parser.parse(await payloadOf(format, body, contentType, parser));
    const answer = await this.outcomeOf(scrobbler, parsed);
    this.metrics.countScrobble(parser.kind, answer.outcome);
    return answer;
  }

  private async outcomeOf(scrobbler: Scrobbler, parsed: ParsedScrobble): Promise<ScrobbleAnswer> {
    const now = Date.now();
    const answer = (outcome: ScrobbleOutcome, titleId: number | null, progress: number | null) =>
      ({
        outcome,
        title_id: titleId,
        [SCROBBLE_FIELDS[parsed.mediaType].progress]: progress,
      }) as ScrobbleAnswer;
    const touched = async (result: ScrobbleAnswer) => {
      await this.scrobblers.touchNow(scrobbler, now);
      return result;
    };
    if (!parsed.watched) return touched(answer('not_watched', null, null));
    if (parsed.mediaType === 'manga' && !scrobbler.mayWriteManga) {
      return touched(answer('ignored', null, null));
    }
    if (
      scrobbler.serverUser !== null ? parsed.user !== scrobbler.serverUser : parsed.otherAccount
    ) {
      return touched(answer('ignored', null, null));
    }
    const match = await this.match(scrobbler.userId, parsed);
    if (!match) {
      if (parsed.series !== null) {
        await this.ledger.keepUnmatched(scrobbler.userId, parsed, parsed.series, scrobbler, now);
      }
      return touched(answer('unmatched', null, null));
    }
    const episode = parsed.episode === null ? null : parsed.episode + match.offset;
    await this.scrobblers.touchNow(scrobbler, now);
    const result = await this.ratings.inWriteTransaction(
      async (writer) => {
        const current = await writer.current(scrobbler.userId, parsed.mediaType, {
          id: match.titleId,
          byExternalId: false,
        });
        if (!current) return answer('unmatched', null, null);
        const progressOf = (entry: unknown) =>
          entry === null
            ? null
            : Number(
                (entry as Record<string, unknown>)[SCROBBLE_FIELDS[parsed.mediaType].progress] ?? 0,
              );
        const stays = (outcome: ScrobbleOutcome) =>
          answer(outcome, match.titleId, progressOf(current.entry));
        const count = current.title[SCROBBLE_FIELDS[parsed.mediaType].count];
        const watched = watchedEpisode(scrobbler.kind, episode, count);
        if (watched !== null) {
          // The scrobbler deleted meanwhile: its row is gone, so is its URL.
          const duplicate = await writer.alongside((manager) =>
            this.ledger
              .isDuplicate(
                manager,
                {
                  scrobblerId: scrobbler.id,
                  mediaType: parsed.mediaType,
                  titleId: match.titleId,
                  episode: watched,
                },
                now,
              )
              .catch((error: unknown) => {
                throw isMissingParent(error) ? unknownSecret() : error;
              }),
          );
          if (duplicate) return stays('duplicate');
        }
        if (watched === null || watched < 1) return stays('ignored');
        return this.write(writer, scrobbler.userId, parsed.mediaType, match.titleId, {
          row: current.title,
          entry: current.entry,
          count,
          volumes: current.title.volumes,
          episode: watched,
          volume: parsed.volume,
          rewatches: scrobbler.rewatches,
          visible: scrobbler.visible,
          today: () =>
            writer
              .alongside((manager) => this.settings.timeZoneOf(scrobbler.userId, manager))
              .then((zone) => dayIn(zone, now)),
          replay: false,
          kind: scrobbler.kind,
        }).then(({ outcome, progress }) => answer(outcome, match.titleId, progress));
      },
      { id: scrobbler.userId, name: null, clientName: scrobbler.kind },
      'scrobble',
    );
    return result;
  }

  /** One watched episode's effect, written through the writer when it moves anything. */
  private async write(
    writer: RatingWriter,
    userId: number,
    mediaType: ScrobbledMediaType,
    titleId: number,
    input: Omit<Parameters<typeof scrobbleEffect>[0], 'mediaType'> & {
      kind: string;
      row: TitleWithEntryRow;
    },
  ): Promise<{
    outcome: 'created' | 'updated' | 'unchanged' | 'ignored';
    progress: number | null;
  }> {
    const { progress } = SCROBBLE_FIELDS[mediaType];
    const before =
      input.entry === null
        ? null
        : Number((input.entry as unknown as Record<string, unknown>)[progress] ?? 0);
    const effect = await scrobbleEffect({ ...input, mediaType });
    if (effect.body === null) return { outcome: effect.outcome, progress: before };
    try {
      const change = await writer.put(
        userId,
        mediaType,
        { id: titleId, byExternalId: false },
        effect.body as unknown as PutRatingDto,
        { client: input.kind, current: input.row, rewatchedAtOnce: effect.rewatchedAtOnce },
      );
      const after = change.entry as unknown as Record<string, unknown>;
      return { outcome: effect.outcome, progress: Number(after[progress] ?? 0) };
    } catch (error) {
      // An entry the rules refuse to move so (its start date after today, say) stays as it is.
      if (error instanceof ProblemException && error.getStatus() === 400) {
        return { outcome: 'ignored', progress: before };
      }
      throw error;
    }
  }

  /** Contract §21's matching: ids (season absent or 1), the mapping, the name (season absent or 1). */
  private async match(userId: number, parsed: ParsedScrobble): Promise<Match | null> {
    const firstSeason = parsed.season === null || parsed.season === 1;
    if (firstSeason) {
      for (const kind of ID_ORDER) {
        const id = parsed.ids[kind];
        if (id === undefined) continue;
        const titleId =
          kind === 'mal'
            ? await this.titles.titleOfExternalId(parsed.mediaType, id)
            : await this.titles.titleOfRef(parsed.mediaType, kind, id);
        if (titleId !== null) return { titleId, offset: 0 };
      }
    }
    if (parsed.series === null) return null;
    const mapping = await this.ledger.mappingOf(
      userId,
      parsed.mediaType,
      mappingKey(parsed.series, parsed.season),
    );
    if (mapping) return { titleId: mapping.titleId, offset: mapping.episodeOffset };
    if (firstSeason) {
      const named = await this.titles.titlesNamed(parsed.mediaType, parsed.series);
      if (named.length === 1) return { titleId: named[0], offset: 0 };
    }
    return null;
  }

  unmatched(userId: number): Promise<UnmatchedScrobbleView[]> {
    return this.ledger.unmatchedViews(userId);
  }

  mappings(userId: number): Promise<ScrobbleMappingView[]> {
    return this.ledger.mappingViews(userId);
  }

  /**
   * PUT /v1/my/scrobble-mappings: the mapping, and the key's pending requests applied in their
   * order of arrival, in one transaction (never a rewatch, never lowering, their arrival days).
   */
  async putMapping(
    user: AuthenticatedUser,
    body: PutScrobbleMappingDto,
  ): Promise<ScrobbleMappingView> {
    const userId = user.id;
    const mediaType = body.media_type ?? 'anime';
    // The route needs ratings.anime; a manga mapping writes manga entries when it replays.
    if (!user.scopes.has(SCOPES[mediaType])) throw insufficientScope(SCOPES[mediaType]);
    const season = body.season ?? null;
    if (!(await this.titles.exists(mediaType, body.title_id))) {
      throw ProblemException.notFound(`No ${mediaType} title has id ${body.title_id}`);
    }
    const mapping: ScrobbleMapping = {
      userId,
      mediaType,
      keyHash: mappingKey(body.series, season),
      series: body.series,
      season,
      titleId: body.title_id,
      episodeOffset: body.episode_offset ?? 0,
    };
    const zone = await this.settings.timeZoneOf(userId);
    await this.ratings.inWriteTransaction(
      async (writer) => {
        const key = { id: mapping.titleId, byExternalId: false };
        await writer.current(userId, mediaType, key);
        const pending = await writer.alongside((manager) =>
          this.ledger.pendingOf(manager, userId, mediaType, mapping.keyHash),
        );
        for (const request of pending) {
          const episode = request.episode === null ? null : request.episode + mapping.episodeOffset;
          const current = await writer.current(userId, mediaType, key);
          if (!current) break;
          const count = current.title[SCROBBLE_FIELDS[mediaType].count];
          const watched = watchedEpisode(request.kind, episode, count);
          if (watched === null || watched < 1) continue;
          await this.write(writer, userId, mediaType, mapping.titleId, {
            row: current.title,
            entry: current.entry,
            count,
            volumes: current.title.volumes,
            episode: watched,
            volume: request.volume,
            rewatches: false,
            visible: request.visible,
            today: () => Promise.resolve(dayIn(zone, request.arrivedAtMs)),
            replay: true,
            kind: request.kind,
          });
        }
        await writer.alongside(async (manager) => {
          await this.ledger.forgetPending(
            manager,
            pending.map((request) => request.id),
          );
          await this.ledger.saveMapping(manager, mapping);
        });
      },
      { id: userId, name: null, clientName: null },
      'scrobble',
    );
    return mappingView(mapping);
  }

  async deleteMapping(
    userId: number,
    series: string,
    season: number | null,
    mediaType: ScrobbledMediaType,
  ): Promise<void> {
    if (!(await this.ledger.deleteMapping(userId, mediaType, mappingKey(series, season)))) {
      throw ProblemException.notFound('You have no mapping of this series, season and media type');
    }
  }
}

/** 404 with an unknown path's members, saying nothing of the secret (contract §21). */
export function unknownSecret(): ProblemException {
  return ProblemException.notFound('No scrobbler answers at this address');
}

/**
 * The episode a payload counts as watched (after the mapping's offset): a generic payload without
 * one is episode 1 of a title whose known count is 1 (contract §21); any other without one, none.
 */
function watchedEpisode(kind: string, episode: number | null, count: number | null): number | null {
  if (episode !== null) return episode;
  return kind === 'generic' && count === 1 ? 1 : null;
}
