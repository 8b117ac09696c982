"""Accounts for team mode: passwords, sessions, invites, API tokens and login throttling."""

import functools
import hashlib
import re
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import bindparam, delete, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from app.accounts import throttle
from app.errors import Busy, Conflict, Invalid, NotFound, Throttled, WrongCredentials
from app.infra.db import Database
from app.infra.models import ApiToken, AuthSession, Invite, Learner

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,39}$")
MIN_PASSWORD = 8
# Password checks running at once in one process, and how long a sign-in waits for its turn.
CONCURRENT_VERIFICATIONS = 4
VERIFY_WAIT_SECONDS = 20.0
TOKEN_PREFIX = "qb_"

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters
_verifications = threading.BoundedSemaphore(CONCURRENT_VERIFICATIONS)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def _check_new_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise Invalid("password_too_short", min=MIN_PASSWORD)


def create_user(
    session: Session, *, database: Database, name: str, password: str, is_admin: bool = False
) -> Learner:
    """Add an account; the name must be free and the password long enough."""
    password_hash = _new_password_hash(name, password)
    with database.writing(session):
        learner = _add_user(session, name=name, password_hash=password_hash, is_admin=is_admin)
    session.refresh(learner)
    return learner


def _new_password_hash(name: str, password: str) -> str:
    """The hash of a new account's password, made before its write: hashing takes a while."""
    if not NAME.match(name):
        raise Invalid("user_name_invalid")
    _check_new_password(password)
    return hash_password(password)


def _add_user(session: Session, *, name: str, password_hash: str, is_admin: bool) -> Learner:
    """Add an account in the session's transaction, uncommitted; Conflict if the name is taken."""
    # Sign-in matches names without case, so "Ana" next to "ana" could never sign in.
    if session.exec(select(Learner).where(func.lower(Learner.name) == name.lower())).first():
        raise Conflict("user_exists", name=name)
    learner = Learner(name=name, password_hash=password_hash, is_admin=is_admin)
    session.add(learner)
    try:
        session.flush()
    except IntegrityError:
        raise Conflict("user_exists", name=name) from None
    return learner


def get_user(session: Session, name: str) -> Learner:
    learner = session.exec(select(Learner).where(Learner.name == name)).first()
    if learner is None or learner.password_hash is None:
        raise NotFound("user_not_found", name=name)
    return learner


def list_users(session: Session) -> list[Learner]:
    query = (
        select(Learner).where(col(Learner.password_hash).is_not(None)).order_by(col(Learner.name))
    )
    return list(session.exec(query))


def set_disabled(session: Session, *, database: Database, name: str, disabled: bool) -> Learner:
    """Disable (or re-enable) an account; disabling ends its sessions and tokens stop working."""
    with database.writing(session):
        learner = get_user(session, name)
        learner.disabled = disabled
        session.add(learner)
        if disabled:
            session.exec(delete(AuthSession).where(col(AuthSession.learner_id) == learner.id))
    return learner


def set_password(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    password: str,
    keep: str | None = None,
) -> None:
    """Store a new password and end every session of the learner except `keep`."""
    _check_new_password(password)
    password_hash = hash_password(password)
    query = delete(AuthSession).where(col(AuthSession.learner_id) == learner.id)
    if keep is not None:
        query = query.where(col(AuthSession.id) != _digest(keep))
    with database.writing(session):
        learner.password_hash = password_hash
        session.add(learner)
        session.exec(query)


def change_password(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    old: str,
    new: str,
    current_token: str | None,
) -> None:
    if not _verify(learner.password_hash, old):
        raise WrongCredentials("wrong_password")
    set_password(session, learner=learner, password=new, keep=current_token, database=database)


@functools.cache
def _dummy_hash(hasher: PasswordHasher) -> str:
    return hasher.hash(secrets.token_urlsafe(16))


def _verify(stored: str | None, password: str) -> bool:
    """Check `password` against a stored hash; with none, against a dummy, in the same time."""
    # Each argon2 check holds its memory cost (64 MiB) while it runs: a burst of sign-ins waits here
    # instead of raising the server's memory by gigabytes.
    if not _verifications.acquire(timeout=VERIFY_WAIT_SECONDS):
        raise Busy("password_checks_busy")
    try:
        _hasher.verify(stored or _dummy_hash(_hasher), password)
        return stored is not None
    except (VerificationError, InvalidHashError):
        return False
    finally:
        _verifications.release()


def authenticate(
    session: Session, *, database: Database, name: str, password: str, client: str, now: datetime
) -> Learner:
    """Check a sign-in; beyond the limit for the account or the address none is checked."""
    account = name.strip().casefold()
    keys = (throttle.account_key(account), throttle.client_key(client))
    taken: list[str] = []
    try:
        for key in keys:
            if not throttle.take(session, key=key, now=now, database=database):
                raise Throttled("sign_in_throttled")
            taken.append(key)
        learner = session.exec(select(Learner).where(func.lower(Learner.name) == account)).first()
        stored = learner.password_hash if learner is not None else None
        disabled = learner is None or learner.disabled
        session.rollback()  # no connection held while the password is checked
        # A disabled or unknown account costs the same check: its name stays private.
        if not _verify(stored, password) or disabled:
            taken.clear()  # a failure keeps its places
            throttle.forget_ended(session, now=now, database=database)
            raise WrongCredentials("wrong_credentials")
    finally:
        for key in taken:
            throttle.give_back(session, key=key, database=database)
    assert learner is not None
    if _hasher.check_needs_rehash(learner.password_hash or ""):
        password_hash = hash_password(password)
        with database.writing(session):
            learner.password_hash = password_hash
            session.add(learner)
    return learner


@dataclass(frozen=True)
class SignedIn:
    token: str
    csrf_token: str


def start_session(
    session: Session, *, database: Database, learner: Learner, now: datetime, days: int
) -> SignedIn:
    assert learner.id is not None  # a stored learner
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    # Deleted in the database without loading the expired rows into this session.
    expired = delete(AuthSession).where(col(AuthSession.expires_at) < now)
    with database.writing(session):
        session.add(
            AuthSession(
                id=_digest(token),
                learner_id=learner.id,
                csrf_token=csrf,
                created_at=now,
                expires_at=now + timedelta(days=days),
            )
        )
        session.exec(expired.execution_options(synchronize_session=False))
    return SignedIn(token, csrf)


def end_session(session: Session, token: str, *, database: Database) -> None:
    with database.writing(session):
        session.exec(delete(AuthSession).where(col(AuthSession.id) == _digest(token)))


def session_learner(
    session: Session, token: str, now: datetime
) -> tuple[AuthSession, Learner] | None:
    """The live session for a cookie token and its (enabled) learner."""
    found = session.exec(_session_statement(), params={"digest": _digest(token)}).first()
    if found is None:
        return None
    row, learner = found
    if row.expires_at <= now or learner.disabled:
        return None
    return row, learner


@cache
def _session_statement() -> Select[AuthSession, Learner]:
    # Built once and one look-up: every request of a signed-in browser makes it.
    return (
        select(AuthSession, Learner)
        .join(Learner, col(Learner.id) == AuthSession.learner_id)
        .where(AuthSession.id == bindparam("digest"))
    )


def create_invite(
    session: Session,
    *,
    database: Database,
    admin: Learner,
    now: datetime,
    days: int,
    is_admin: bool = False,
) -> str:
    """A single-use sign-up link token that expires after `days`."""
    assert admin.id is not None  # a stored learner
    token = secrets.token_urlsafe(24)
    with database.writing(session):
        session.add(
            Invite(
                id=_digest(token),
                created_by=admin.id,
                is_admin=is_admin,
                created_at=now,
                expires_at=now + timedelta(days=days),
            )
        )
    return token


def check_invite(session: Session, token: str, now: datetime) -> Invite:
    invite = session.get(Invite, _digest(token))
    if invite is None:
        raise NotFound("invite_invalid")
    if invite.used_at is not None:
        raise Conflict("invite_used")
    if invite.expires_at <= now:
        raise Conflict("invite_expired")
    return invite


def redeem_invite(
    session: Session, *, database: Database, token: str, name: str, password: str, now: datetime
) -> Learner:
    """Create the account an invite allows, and claim the invite, in one transaction."""
    invite = check_invite(session, token, now)
    invite_id, is_admin = invite.id, invite.is_admin
    password_hash = _new_password_hash(name, password)
    with database.writing(session):
        learner = _add_user(session, name=name, password_hash=password_hash, is_admin=is_admin)
        # Of two simultaneous sign-ups with one invite only one claims it; the other adds no one.
        claimed = session.exec(
            update(Invite)
            .where(col(Invite.id) == invite_id, col(Invite.used_at).is_(None))
            .values(used_at=now, used_by=learner.id)
        )
        if claimed.rowcount != 1:
            raise Conflict("invite_used")
    session.refresh(learner)
    return learner


def list_invites(session: Session, now: datetime) -> list[Invite]:
    query = select(Invite).where(col(Invite.used_at).is_(None), col(Invite.expires_at) > now)
    return list(session.exec(query.order_by(col(Invite.created_at))))


def create_api_token(
    session: Session, *, database: Database, learner: Learner, name: str, now: datetime
) -> str:
    """A personal token for scripts (`Authorization: Bearer …`); shown once, stored hashed."""
    name = name.strip()
    if not 1 <= len(name) <= 100:
        raise Invalid("token_name_invalid")
    assert learner.id is not None  # a stored learner
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with database.writing(session):
        session.add(
            ApiToken(
                learner_id=learner.id,
                name=name,
                token_hash=_digest(token),
                prefix=token[:10],
                created_at=now,
            )
        )
    return token


def api_tokens(session: Session, *, learner: Learner) -> list[ApiToken]:
    query = select(ApiToken).where(
        ApiToken.learner_id == learner.id, col(ApiToken.revoked_at).is_(None)
    )
    return list(session.exec(query.order_by(col(ApiToken.created_at))))


def revoke_api_token(
    session: Session, *, database: Database, learner: Learner, token_id: int, now: datetime
) -> None:
    token = session.get(ApiToken, token_id)
    if token is None or token.learner_id != learner.id or token.revoked_at is not None:
        raise NotFound("token_not_found")
    with database.writing(session):
        token.revoked_at = now
        session.add(token)


@cache
def _token_statement() -> Select[ApiToken, Learner]:
    # Built once: scripts send a token with every request.
    return (
        select(ApiToken, Learner)
        .join(Learner, col(Learner.id) == ApiToken.learner_id)
        .where(ApiToken.token_hash == bindparam("digest"))
    )


def token_learner(
    session: Session, token: str, now: datetime, *, database: Database
) -> Learner | None:
    """The (enabled) learner of a live API token, recording its use."""
    found = session.exec(_token_statement(), params={"digest": _digest(token)}).first()
    if found is None:
        return None
    row, learner = found
    if row.revoked_at is not None or learner.disabled:
        return None
    # Only touch the row once a minute or so: tokens are used in hot loops by scripts.
    if row.last_used_at is None or now - row.last_used_at > timedelta(minutes=1):
        with database.writing(session):
            row.last_used_at = now
            session.add(row)
    return learner
