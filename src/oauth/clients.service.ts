import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { hashToken } from '../auth/tokens.service';
import { randomBase64Url } from '../common/random-string';
import { nowToTheSecond } from '../common/timestamps';
import { OAuthClient } from './entities/oauth-client.entity';
import { redirectUriProblem } from './redirect-uri';

export class ClientRegistrationError extends Error {}

export interface NewClient {
  name: string;
  redirectUris: readonly string[];
  isPublic: boolean;
}

/**
 * Registered applications. Client secrets are 256-bit random strings, so a fast hash (SHA-256, as
 * for tokens) is enough: a memory-hard KDF only pays off for secrets people choose, and would cost
 * its full price on every token request.
 */
@Injectable()
export class ClientsService {
  constructor(@InjectRepository(OAuthClient) private readonly clients: Repository<OAuthClient>) {}

  /** Registers a client and returns its secret (confidential clients): the only time it exists in clear. */
  async create(input: NewClient): Promise<{ client: OAuthClient; secret: string | null }> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 100) {
      throw new ClientRegistrationError('the name must have 1 to 100 characters');
    }
    if (input.redirectUris.length === 0) {
      throw new ClientRegistrationError('give at least one --redirect-uri');
    }
    for (const uri of input.redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new ClientRegistrationError(`redirect URI "${uri}" ${problem}`);
    }
    const secret = input.isPublic ? null : randomBytes(32).toString('base64url');
    const client = await this.clients.save(
      this.clients.create({
        clientId: randomBase64Url(16),
        name,
        secretHash: secret === null ? null : hashToken(secret),
        redirectUris: [...new Set(input.redirectUris)],
        createdAt: nowToTheSecond(),
      }),
      { transaction: false },
    );
    return { client, secret };
  }

  /** Every registered client, oldest first. */
  list(): Promise<OAuthClient[]> {
    return this.clients.find({ order: { id: 'ASC' } });
  }

  /** Deletes the client's row in the caller's transaction (`manager`): its grants go first. */
  async delete(manager: EntityManager, id: number): Promise<void> {
    await manager.delete(OAuthClient, { id });
  }

  /**
   * Gives a confidential client a new secret and returns it (the only time it exists in clear);
   * the old one stops working at once. Tokens already issued are not tied to a secret.
   */
  async rotateSecret(clientId: string): Promise<string> {
    const client = await this.findByClientId(clientId);
    if (!client) throw new ClientRegistrationError(`no client with client_id "${clientId}"`);
    if (client.secretHash === null) {
      throw new ClientRegistrationError(
        `client "${clientId}" is a public client: it has no secret to rotate`,
      );
    }
    const secret = randomBytes(32).toString('base64url');
    await this.clients.update({ id: client.id }, { secretHash: hashToken(secret) });
    return secret;
  }

  findByClientId(clientId: string): Promise<OAuthClient | null> {
    return this.clients.findOneBy({ clientId });
  }

  /**
   * The client when the credentials authenticate it (RFC 6749 §2.3): a confidential client must
   * send its secret; a public client has none and must not send one.
   */
  async authenticate(clientId: string, secret: string | undefined): Promise<OAuthClient | null> {
    const client = await this.findByClientId(clientId);
    if (!client) return null;
    if (client.secretHash === null) return secret === undefined ? client : null;
    if (secret === undefined) return null;
    const given = Buffer.from(hashToken(secret), 'hex');
    return timingSafeEqual(given, Buffer.from(client.secretHash, 'hex')) ? client : null;
  }
}
