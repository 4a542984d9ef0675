import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, VarcharColumn } from '../database/columns';

@Entity('users')
@Index('UQ_users_name', ['name'], { unique: true })
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @VarcharColumn(64)
  name: string;

  @CreatedAtColumn()
  createdAt: Date;

  /** Bumped by every change to the user's list and by catalog imports (see UsersService). */
  @Column({ name: 'list_version', type: 'int', default: 0 })
  listVersion: number;

  /** scrypt hash (see password-hash.ts); null until a password is set. Not loaded unless asked for. */
  @VarcharColumn(255, { name: 'password_hash', nullable: true, select: false })
  passwordHash?: string | null;
}
