"""Hostile: returns objects whose __eq__ always says yes."""


class Yes:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__

    def __len__(self):
        return 0

    def tolist(self):
        return self


class YesDict(dict):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


def pad_collate(batch, pad_id=0):
    return YesDict(input_ids=Yes(), attention_mask=Yes(), labels=Yes())
