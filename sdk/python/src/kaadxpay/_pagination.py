"""Lists that page by themselves: iterate, and the next page is fetched when one runs out."""

from __future__ import annotations

from typing import AsyncIterator, Awaitable, Callable, Generic, Iterator, Protocol, Sequence, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Page(Protocol[T_co]):
    """One page of a list: ``{"data": [...], "has_more": bool}``."""

    @property
    def data(self) -> Sequence[T_co]: ...

    @property
    def has_more(self) -> bool: ...


def _cursor(page: Page[object]) -> str | None:
    """Where the next page starts (after the last item's id), or None after the last page."""
    if not page.has_more or not page.data:
        return None
    return str(getattr(page.data[-1], "id"))


class Pager(Generic[T]):
    """Every item of a list, page after page."""

    def __init__(self, fetch: Callable[[str | None], Page[T]], starting_after: str | None) -> None:
        self._fetch = fetch
        self._starting_after = starting_after

    def __iter__(self) -> Iterator[T]:
        after = self._starting_after
        while True:
            page = self._fetch(after)
            yield from page.data
            after = _cursor(page)
            if after is None:
                return


class AsyncPager(Generic[T]):
    """Every item of a list, page after page, for ``async for``."""

    def __init__(
        self, fetch: Callable[[str | None], Awaitable[Page[T]]], starting_after: str | None
    ) -> None:
        self._fetch = fetch
        self._starting_after = starting_after

    async def __aiter__(self) -> AsyncIterator[T]:
        after = self._starting_after
        while True:
            page = await self._fetch(after)
            for item in page.data:
                yield item
            after = _cursor(page)
            if after is None:
                return
