import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { nowToTheSecond } from '../common/timestamps';
import { isUniqueViolation } from '../database/errors';
import { User } from './user.entity';

export const USER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class UserNameTakenError extends Error {
  constructor(name: string) {
    super(`a user named "${name}" already exists`);
  }
}

export class InvalidUserNameError extends Error {
  constructor(name: string) {
    super(
      `invalid user name "${name}": use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
}

@Injectable()
export class UsersService {
  constructor(@InjectRepository(User) private readonly users: Repository<User>) {}

  async create(name: string): Promise<User> {
    if (!USER_NAME_PATTERN.test(name)) throw new InvalidUserNameError(name);
    try {
      return await this.users.save(this.users.create({ name, createdAt: nowToTheSecond() }));
    } catch (error) {
      if (isUniqueViolation(error)) throw new UserNameTakenError(name);
      throw error;
    }
  }

  findByName(name: string): Promise<User | null> {
    return this.users.findOneBy({ name });
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }
}
