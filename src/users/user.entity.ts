import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity('users')
@Index('UQ_users_name', ['name'], { unique: true })
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt: Date;

  /** scrypt hash (see password-hash.ts); null until a password is set. Not loaded unless asked for. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true, select: false })
  passwordHash?: string | null;
}
