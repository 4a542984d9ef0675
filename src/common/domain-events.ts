import { OnEvent } from '@nestjs/event-emitter';
import type { EventEmitter2 } from '@nestjs/event-emitter';

/**
 * The domain events, by name: each feature adds the events it emits by declaration merging
 * (`declare module '…/common/domain-events' { interface DomainEvents { 'rating.changed': RatingChange } }`),
 * so that this file names no feature. The payload type follows from the name at compile time.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface DomainEvents {}

export type DomainEventName = Extract<keyof DomainEvents, string>;

/** The payload of the event named E (immich's `ArgOf<'Event'>`). */
export type ArgOf<E extends DomainEventName> = DomainEvents[E];

/**
 * `@OnEvent` for a domain event: the decorated method must take that event's payload (or
 * nothing), or the code does not compile.
 */
export function OnDomainEvent<E extends DomainEventName>(name: E) {
  return (
    target: object,
    key: string | symbol,
    descriptor: { value?: (payload: ArgOf<E>) => unknown },
  ): void => {
    OnEvent(name)(target, key, descriptor as PropertyDescriptor);
  };
}

/** Emits a domain event, its payload checked against its name. */
export function emitDomainEvent<E extends DomainEventName>(
  events: EventEmitter2,
  name: E,
  payload: ArgOf<E>,
): void {
  events.emit(name, payload);
}
