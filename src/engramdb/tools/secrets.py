"""Connection strings are sealed at rest: AES-256-GCM under a keyring (cognee's contract).

``INTEGRATION_CREDENTIALS_KEYS`` is a JSON object ``{"<key_id>": "<base64 32-byte key>"}``
of every key that may still decrypt; new secrets are sealed under
``INTEGRATION_CREDENTIALS_ACTIVE_KEY_ID`` (default ``"1"``). ``INTEGRATION_CREDENTIALS_KEY``
alone is a one-key ring under id ``"1"``. Each sealed value records its key id, so a key is
rotated by adding a new one and pointing the active id at it. The owner and the connection
name are bound in as associated data: a sealed value copied to another user's row does not
open. There is no plaintext fallback: without a key, registering a connection is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import TYPE_CHECKING

from engramdb.errors import ConfigurationError, FeatureNotAvailableError

if TYPE_CHECKING:
    from engramdb.settings import Settings

__all__ = ["open_secret", "seal_secret"]

_VERSION = "v1"
_HINT = (
    "set INTEGRATION_CREDENTIALS_KEY to a base64-encoded 32-byte key, e.g. the output of "
    '`python -c "import base64, os; print(base64.b64encode(os.urandom(32)).decode())"`'
)


def _keyring(settings: Settings) -> dict[str, bytes]:
    if settings.integration_credentials_keys:
        try:
            encoded = json.loads(settings.integration_credentials_keys)
        except json.JSONDecodeError as exc:
            raise ConfigurationError(f"INTEGRATION_CREDENTIALS_KEYS is not JSON: {exc}") from exc
        if not isinstance(encoded, dict):
            raise ConfigurationError("INTEGRATION_CREDENTIALS_KEYS must be a JSON object")
    elif settings.integration_credentials_key:
        encoded = {"1": settings.integration_credentials_key}
    else:
        raise ConfigurationError(f"Tool connection strings are stored encrypted; {_HINT}.")
    ring: dict[str, bytes] = {}
    for key_id, value in encoded.items():
        try:
            key = base64.b64decode(str(value), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ConfigurationError(f"credentials key {key_id!r} is not base64") from exc
        if len(key) != 32:
            raise ConfigurationError(f"credentials key {key_id!r} is not 32 bytes; {_HINT}")
        ring[str(key_id)] = key
    return ring


def _aesgcm(key: bytes):  # type: ignore[no-untyped-def]
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError as exc:  # pragma: no cover - part of the tools extra
        raise FeatureNotAvailableError(
            "sealing tool connection strings needs cryptography; install engramdb[tools]"
        ) from exc
    return AESGCM(key)


def seal_secret(settings: Settings, plaintext: str, *, bound_to: str) -> str:
    """``plaintext`` sealed under the active key, bound to ``bound_to`` (owner and name)."""
    ring = _keyring(settings)
    key_id = settings.integration_credentials_active_key_id
    if key_id not in ring:
        raise ConfigurationError(
            f"INTEGRATION_CREDENTIALS_ACTIVE_KEY_ID {key_id!r} is not a key of the keyring"
        )
    nonce = os.urandom(12)
    sealed = _aesgcm(ring[key_id]).encrypt(nonce, plaintext.encode(), bound_to.encode())
    parts = (base64.b64encode(nonce).decode(), base64.b64encode(sealed).decode())
    return f"{_VERSION}.{key_id}.{parts[0]}.{parts[1]}"


def open_secret(settings: Settings, token: str, *, bound_to: str) -> str:
    """The plaintext of a value :func:`seal_secret` produced for ``bound_to``."""
    try:
        version, key_id, nonce, sealed = token.split(".")
    except ValueError:
        raise ConfigurationError("a stored tool connection string is not sealed") from None
    if version != _VERSION:
        raise ConfigurationError(f"unknown sealing version {version!r}")
    key = _keyring(settings).get(key_id)
    if key is None:
        raise ConfigurationError(
            f"the credentials key {key_id!r} that sealed this connection string is not in "
            "INTEGRATION_CREDENTIALS_KEYS any more"
        )
    try:
        opened = _aesgcm(key).decrypt(
            base64.b64decode(nonce), base64.b64decode(sealed), bound_to.encode()
        )
    except Exception as exc:  # InvalidTag: wrong key or a value moved between rows
        raise ConfigurationError(
            f"a stored tool connection string does not open with credentials key {key_id!r}"
        ) from exc
    return bytes(opened).decode()
